"""The package layout: imports flow down the pipeline; only engines import clingo and only
the Spark package imports pyspark."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "ticker_py"

# a part may not import the parts listed for it (they come later in the pipeline)
LATER = {
    "syntax": {"analysis", "encode", "engines", "streams", "api", "cli", "spark", "live", "bench"},
    "ast": {"syntax", "analysis", "encode", "engines", "streams", "api", "cli", "spark", "live", "bench"},
    "analysis": {"encode", "engines", "streams", "api", "cli", "spark", "live", "bench"},
    "encode": {"engines", "streams", "api", "cli", "spark", "live", "bench"},
    "engines": {"api", "cli", "spark", "live", "bench"},
    "streams": {"api", "cli", "spark", "live", "bench"},
}


def _imports(path: Path):
    """``(module, line)`` of every import in a file, relative ones resolved in ticker_py."""
    tree = ast.parse(path.read_text())
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                yield ".".join(base + ((node.module,) if node.module else ())), node.lineno
            else:
                yield node.module, node.lineno


def _files():
    return sorted(PACKAGE.rglob("*.py"))


def _part(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def test_only_engines_import_clingo():
    bad = [f"{p.relative_to(PACKAGE)}:{line}" for p in _files() for mod, line in _imports(p)
           if mod.split(".")[0] == "clingo" and _part(p) != "engines"]
    assert not bad, bad


def test_only_the_spark_package_imports_pyspark():
    bad = [f"{p.relative_to(PACKAGE)}:{line}" for p in _files() for mod, line in _imports(p)
           if mod.split(".")[0] == "pyspark" and _part(p) != "spark"]
    assert not bad, bad


@pytest.mark.parametrize("part", sorted(LATER))
def test_imports_flow_down_the_pipeline(part):
    bad = []
    for p in _files():
        if _part(p) != part:
            continue
        for mod, line in _imports(p):
            names = mod.split(".")
            if names[0] == "ticker_py" and len(names) > 1 and names[1] in LATER[part]:
                bad.append(f"{p.relative_to(PACKAGE)}:{line} imports {mod}")
    assert not bad, bad


def test_the_layout_check_sees_imports():
    found = {mod for p in _files() if _part(p) == "engines" for mod, _ in _imports(p)}
    assert "clingo" in found and "ticker_py.encode" in found
