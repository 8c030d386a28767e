"""The methods of record classes, generated once for many classes (the AST's node types, the
stream model, the options and results a run builds).

``dataclass(frozen=True)`` compiles six methods per class at import time (``dataclass()``
three), about 1 ms a class: most of the AST module's import cost, and a tenth of a small ``ticker
run``. :func:`add_methods` gives a list of classes the same ``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, ``__setattr__`` and ``__delattr__`` (a mutable record: the first three,
and no hash) from one source text (:func:`methods_source`); on request ``_from_fields`` too, the
object with every field given, made without ``__init__`` (for the program parser, whose largest
cost that call was; no ``__post_init__`` check). Where a module of those methods was
written ahead of time (:func:`write_methods`, a golden file kept current by a test) and its layout
still matches the classes, its functions are used as they are, loaded from Python's bytecode cache:
no compiling at start-up. A stale module is never used; the source is then compiled as before.

The AST and the stream model have a module each (``_ast_methods``, ``streams/_model_methods``);
the other record classes of a run (the modules of :func:`shared_modules`) share ``_record_methods``,
each module's classes under its name (:func:`add_shared_methods`); ``python -m ticker_py.records``
writes it.
"""

from __future__ import annotations

from dataclasses import MISSING, FrozenInstanceError, dataclass, fields
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the AST imports this module at every start
    from pathlib import Path
    from types import ModuleType

__all__ = [
    "collecting",
    "layout",
    "methods_source",
    "add_methods",
    "add_shared_methods",
    "write_methods",
    "write_shared_methods",
    "shared_modules",
]

_METHODS = ("init", "repr", "eq", "hash", "setattr", "delattr")


def collecting(registry: list, frozen: bool = True, from_fields: bool = False):
    """A class decorator: ``dataclass(frozen=frozen)`` without the methods, which :func:`add_methods`
    adds later to every class of ``registry`` (where the class is appended) at once; with
    ``from_fields`` also ``cls._from_fields(*values)``. (Each generated function costs start-up
    time: ``_from_fields`` only where it is used.)"""

    def record(cls):
        cls = dataclass(init=False, repr=False, eq=False)(cls)
        cls._record_extras = (() if frozen else ("mutable",)) + (("from_fields",) if from_fields else ())
        registry.append(cls)
        return cls

    return record


def _extras(cls) -> tuple:
    """``"mutable"`` and ``"from_fields"`` if :func:`collecting` was asked for them."""
    return getattr(cls, "_record_extras", ())


def _mutable(cls) -> bool:
    return "mutable" in _extras(cls)


def _default(f):
    return "factory" if f.default_factory is not MISSING else f.default is not MISSING


def layout(classes) -> str:
    """What the generated methods depend on: each class's name and fields (name, has a default or
    ``"factory"``, shown by repr, compared), whether it has ``__post_init__`` and (marked) whether
    it is mutable and has ``_from_fields``."""
    return repr(
        [
            (
                cls.__qualname__,
                hasattr(cls, "__post_init__"),
                [(f.name, _default(f), f.repr, f.compare) for f in fields(cls)],
            )
            + _extras(cls)
            for cls in classes
        ]
    )


def methods_source(classes, start: int = 0) -> str:
    """Python source defining ``init{k}``, ``repr{k}``, ... for the k-th class (counted from
    ``start``), and ``new{k}``, its ``_from_fields`` if it has one. Defaults are placeholders (``None``) that
    :func:`add_methods` replaces by the fields' defaults (a default factory's field: ``MISSING``, then
    the factory ``f{k}_{name}`` is called); ``c{k}``, ``f{k}_{name}``, ``MISSING`` and ``new``
    (``object.__new__``) are globals the caller sets."""
    source = []
    for k, cls in enumerate(classes, start):
        own = fields(cls)
        params = [f.name if _default(f) is False else f"{f.name}=None" for f in own]
        stores = "".join(
            f"    d[{f.name!r}] = {f.name}\n"
            if _default(f) != "factory"
            else f"    d[{f.name!r}] = f{k}_{f.name}() if {f.name} is MISSING else {f.name}\n"
            for f in own
        )
        post = "    self.__post_init__()\n" if hasattr(cls, "__post_init__") else ""
        shown = ", ".join(f"{f.name}={{self.{f.name}!r}}" for f in own if f.repr)
        compared = [f.name for f in own if f.compare]
        mine = "(" + "".join(f"self.{n}," for n in compared) + ")"
        theirs = "(" + "".join(f"other.{n}," for n in compared) + ")"
        names = "(" + "".join(f"{f.name!r}," for f in own) + ")"
        given = "".join(f"    d[{f.name!r}] = {f.name}\n" for f in own)
        if "from_fields" in _extras(cls):
            source.append(
                f"def new{k}({', '.join(f.name for f in own)}):\n    o = new(c{k})\n    d = o.__dict__\n"
                f"{given}    return o\n"
            )
        source.append(
            f"def init{k}(self, {', '.join(params)}):\n    d = self.__dict__\n{stores}{post}"
            f'def repr{k}(self):\n    return self.__class__.__qualname__ + f"({shown})"\n'
            f"def eq{k}(self, other):\n    if other.__class__ is self.__class__:\n"
            f"        return {mine} == {theirs}\n    return NotImplemented\n"
        )
        if not _mutable(cls):
            source.append(
                f"def hash{k}(self):\n    return hash({mine})\n"
                f"def setattr{k}(self, name, value):\n    if type(self) is c{k} or name in {names}:\n"
                f'        raise FrozenInstanceError(f"cannot assign to field {{name!r}}")\n'
                f"    super(c{k}, self).__setattr__(name, value)\n"
                f"def delattr{k}(self, name):\n    if type(self) is c{k} or name in {names}:\n"
                f'        raise FrozenInstanceError(f"cannot delete field {{name!r}}")\n'
                f"    super(c{k}, self).__delattr__(name)\n"
            )
    return "".join(source)


def add_methods(classes, generated: ModuleType | None = None, key: str | None = None) -> None:
    """Give each of ``classes`` the methods ``dataclass(frozen=True)`` would (same behaviour; a
    mutable record's those of ``dataclass()``): from ``generated`` when its layout of the classes
    (``LAYOUT``, or ``LAYOUTS[key]``: the first index and the layout) matches, else compiled here."""
    start, expected = (
        (0, getattr(generated, "LAYOUT", None))
        if key is None
        else getattr(generated, "LAYOUTS", {}).get(key, (0, None))
    )
    if generated is not None and expected == layout(classes):
        scope = vars(generated)
    else:
        start, scope = 0, {"FrozenInstanceError": FrozenInstanceError}
        exec(methods_source(classes), scope)
    scope["new"] = object.__new__
    for k, cls in enumerate(classes, start):
        scope[f"c{k}"] = cls
        own = fields(cls)
        for f in own:
            if f.default_factory is not MISSING:
                scope[f"f{k}_{f.name}"], scope["MISSING"] = f.default_factory, MISSING
        defaults = tuple(
            MISSING if f.default_factory is not MISSING else f.default for f in own if _default(f) is not False
        )
        mutable = _mutable(cls)
        for name in _METHODS[:3] if mutable else _METHODS:
            if name == "repr" and "__repr__" in vars(cls):  # the class's own, as dataclass leaves it
                continue
            method = scope[f"{name}{k}"]
            if name == "init":
                method.__defaults__ = defaults or None
            method.__name__ = f"__{name}__"
            method.__qualname__ = f"{cls.__qualname__}.__{name}__"
            setattr(cls, f"__{name}__", method)
        if "from_fields" in _extras(cls):
            make = scope[f"new{k}"]
            make.__name__, make.__qualname__ = "_from_fields", f"{cls.__qualname__}._from_fields"
            cls._from_fields = make
        if mutable:
            cls.__hash__ = None  # as dataclass(eq=True) leaves a mutable class: unhashable


def add_shared_methods(classes, module: str) -> None:
    """:func:`add_methods` for the records of ``module`` (one of :func:`shared_modules`), from ``_record_methods``."""
    try:
        from . import _record_methods as generated
    except ImportError:  # pragma: no cover - the generated module is part of the package
        generated = None
    add_methods(classes, generated, module)


def write_methods(classes, path: Path, module: str) -> str:
    """Write the methods of ``classes`` as a module at ``path`` (``module`` names what it serves);
    returns its text. Run again whenever a class's fields change (a test says when)."""
    text = (
        f'"""Generated by ticker_py.records.write_methods for {module}: do not edit.\n\n'
        f'Regenerate with ``python -m {module}`` when a node type\'s fields change."""\n\n'
        "# flake8: noqa\nfrom dataclasses import FrozenInstanceError\n\n"
        f"LAYOUT = {layout(classes)!r}\n\n{methods_source(classes)}"
    )
    path.write_text(text)
    return text


def write_shared_methods(groups: dict, path: Path) -> str:
    """Write the methods of the records of several modules (``{module: classes}``) as one module at
    ``path``, each module's layout under its name in ``LAYOUTS``; returns its text."""
    layouts, sources, start = {}, [], 0
    for module, classes in groups.items():
        layouts[module] = (start, layout(classes))
        sources.append(methods_source(classes, start))
        start += len(classes)
    text = (
        '"""Generated by ticker_py.records.write_shared_methods for the record classes of the modules in\n'
        "``LAYOUTS``: do not edit.\n\nRegenerate with ``python -m ticker_py.records`` when a record class's "
        'fields change."""\n\n# flake8: noqa\nfrom dataclasses import FrozenInstanceError\n\n'
        + "LAYOUTS = {\n"
        + "".join(f"    {m!r}: {v!r},\n" for m, v in layouts.items())
        + "}\n\n"
        + "".join(sources)
    )
    path.write_text(text)
    return text


def shared_modules() -> list:
    """The modules of this package whose records take their methods from ``_record_methods``: those
    that call :func:`add_shared_methods`, found by reading the sources (this module names none of
    them: they sit above it), in the order of their names."""
    from pathlib import Path

    root = Path(__file__).resolve().parent
    found = []
    for path in root.rglob("*.py"):
        if path.name != "records.py" and "\nadd_shared_methods(_RECORDS, __name__)" in path.read_text():
            parts = path.relative_to(root.parent).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return sorted(found)


if __name__ == "__main__":
    import importlib
    from pathlib import Path

    write_shared_methods(
        {m: importlib.import_module(m)._RECORDS for m in shared_modules()},
        Path(__file__).with_name("_record_methods.py"),
    )
