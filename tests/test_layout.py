"""The package layout: every module of ticker_py sits on a floor and imports only from its own
floor or below; no import circle; only engines import clingo, only the Spark package imports
pyspark, only the command line imports argparse.

Imports are read with the ``ast`` module, function-local imports included (a lazy import is
still a dependency). ``from X import name`` counts as importing the module ``X.name`` when that
is a module of ticker_py, else ``X``. The root package (``ticker_py/__init__.py``, which
imports lazily by name) may be imported from anywhere, for ``__version__``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "ticker_py"

#: the floors, lowest first; a module may import from its floor and the floors below.
#: ``streams.model`` (Record, TimePoint, Model, Result) and ``streams.factorized`` (Factorized) are
#: the vocabulary every engine returns, so they sit with the values; the readers, writers and the
#: driver are above the engines. The pictures' data and drawing (``plot``) read only that vocabulary,
#: so that results and explanations can draw themselves (``_repr_html_``, ``plot()``); ``pictures``
#: runs programs and comparisons to draw them, above the applications.
FLOORS = [
    {
        "ast",
        "node",
        "process",
        "values",
        "xsd",
        "errors",
        "limits",
        "accelerators",
        "streams.model",
        "streams.factorized",
        "plot",
    },
    {"syntax", "rdf.terms"},
    {"analysis"},
    {"semantics", "windows"},
    {"encode"},
    {"explain"},
    {"engines"},
    {"spec", "streams", "rdf"},
    {"stages"},
    {"workloads"},
    {"api"},
    {"compare", "enumeration", "shard", "semantics_compare", "distinguishing"},
    {"pictures"},
    {"live"},
    {"spark"},
    {"pipeline"},
    {"bench"},
    {"cli"},
]


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def floor(module: str) -> int:
    """The floor of a ``ticker_py.…`` module: the longest declared prefix decides."""
    rel = module.split(".")[1:]
    for n in range(len(rel), 0, -1):
        for i, names in enumerate(FLOORS):
            if ".".join(rel[:n]) in names:
                return i
    raise AssertionError(f"{module} is on no floor: add it to FLOORS")


def imports(path: Path):
    """``(module, line, local)`` of every import in a file, relative ones resolved."""
    tree = ast.parse(path.read_text())
    module = _module(path)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    top = set(id(n) for n in tree.body)
    for node in ast.walk(tree):
        local = id(node) not in top
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, local
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield (sub if sub in MODULES else base), node.lineno, local


def _internal(module: str) -> list:
    """Imports of ticker_py modules by ``module`` (the root package left out)."""
    return [
        (target, line)
        for target, line, _ in imports(MODULES[module])
        if target.startswith("ticker_py.") and target != module
    ]


def test_every_module_is_on_a_floor():
    for module in MODULES:
        if module != "ticker_py":
            floor(module)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m != "ticker_py"))
def test_no_import_from_a_higher_floor(module):
    bad = [
        f"line {line}: imports {target} (floor {floor(target)} > {floor(module)})"
        for target, line in _internal(module)
        if floor(target) > floor(module)
    ]
    assert not bad, bad


def test_no_import_circle():
    graph = {m: {t for t, _ in _internal(m)} for m in MODULES}
    state: dict = {}

    def visit(m, path):
        state[m] = "open"
        for t in graph.get(m, ()):
            if state.get(t) == "open":
                raise AssertionError("import circle: " + " -> ".join(path[path.index(t) :] + [t]))
            if t not in state:
                visit(t, path + [t])
        state[m] = "done"

    for m in graph:
        if m not in state:
            visit(m, [m])


def _importers(root: str) -> list:
    return [(m, line) for m, p in MODULES.items() for target, line, _ in imports(p) if target.split(".")[0] == root]


def test_only_engines_import_clingo():
    bad = [f"{m}:{line}" for m, line in _importers("clingo") if not m.startswith("ticker_py.engines")]
    assert not bad, bad


def test_only_the_spark_package_imports_pyspark():
    bad = [f"{m}:{line}" for m, line in _importers("pyspark") if not m.startswith("ticker_py.spark")]
    assert not bad, bad


def test_only_the_command_line_imports_argparse():
    bad = [f"{m}:{line}" for m, line in _importers("argparse") if not m.startswith("ticker_py.cli")]
    assert not bad, bad


def test_the_layout_check_sees_imports():
    found = {t for t, _, _ in imports(MODULES["ticker_py.engines.clingo_engine"])}
    assert "clingo" in found and "ticker_py.encode" in found
    local = {t for t, _, is_local in imports(MODULES["ticker_py.cli.run"]) if is_local}
    assert "ticker_py.pipeline" in local  # function-local imports are read too
    assert floor("ticker_py.streams.model") < floor("ticker_py.engines.base") < floor("ticker_py.stages.drive")
    with pytest.raises(AssertionError):
        floor("ticker_py.nowhere")


def _private_imports(text: str, module: str, package_init: bool = False):
    """``(line, name, source)`` of every private name (``_x``) that ``text``, the source of
    ``module``, imports from another package (``ticker_py.X`` is a package, or a module at the top)."""
    own = ".".join(module.split(".")[:2])
    parts = module.split(".") if package_init else module.split(".")[:-1]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if not base.startswith("ticker_py") or ".".join(base.split(".")[:2]) == own:
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    yield node.lineno, alias.name, base


def test_no_private_name_is_imported_across_packages():
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {name} from {base}"
        for module, path in MODULES.items()
        for line, name, base in _private_imports(path.read_text(), module, path.name == "__init__.py")
    ]
    assert found == []


def test_the_private_import_check_sees_one():
    text = "from ..values import _unquote, format_term\nfrom .mapping import _inner\nfrom . import _x\n"
    assert list(_private_imports(text, "ticker_py.rdf.terms")) == [(1, "_unquote", "ticker_py.values")]
    assert list(_private_imports("from .streams import _y\n", "ticker_py.api")) == [(1, "_y", "ticker_py.streams")]
