"""The methods of frozen record classes, generated once for many classes (the AST's node types).

``dataclass(frozen=True)`` compiles six methods per class at import time, which was most of the
AST module's import cost. :func:`add_methods` gives a list of classes the same ``__init__``,
``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__`` and ``__delattr__`` from one source
text (:func:`methods_source`). Where a module of those methods was written ahead of time
(:func:`write_methods`, a golden file kept current by a test) and its layout still matches the
classes, its functions are used as they are, loaded from Python's bytecode cache: no compiling at
start-up. A stale module is never used; the source is then compiled as before.
"""

from __future__ import annotations

from dataclasses import MISSING, FrozenInstanceError, dataclass, fields
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:  # annotations only: the AST imports this module at every start
    from pathlib import Path
    from types import ModuleType

__all__ = ["collecting", "layout", "methods_source", "add_methods", "write_methods"]

_METHODS = ("init", "repr", "eq", "hash", "setattr", "delattr")


def collecting(registry: list):
    """A class decorator: ``dataclass(frozen=True)`` without the methods, which :func:`add_methods`
    adds later to every class of ``registry`` (where the class is appended) at once."""
    def record(cls):
        cls = dataclass(init=False, repr=False, eq=False)(cls)
        registry.append(cls)
        return cls
    return record


def layout(classes) -> str:
    """What the generated methods depend on: each class's name and fields (name, has a default,
    shown by repr, compared) and whether it has ``__post_init__``."""
    return repr([(cls.__qualname__, hasattr(cls, "__post_init__"),
                  [(f.name, f.default is not MISSING, f.repr, f.compare) for f in fields(cls)])
                 for cls in classes])


def methods_source(classes) -> str:
    """Python source defining ``init{k}``, ``repr{k}``, ... for the k-th class. Defaults are
    placeholders (``None``) that :func:`add_methods` replaces by the fields' defaults; ``c{k}``
    names the class (a global the caller sets)."""
    source = []
    for k, cls in enumerate(classes):
        own = fields(cls)
        params = [f.name if f.default is MISSING else f"{f.name}=None" for f in own]
        stores = "".join(f"    d[{f.name!r}] = {f.name}\n" for f in own)
        post = "    self.__post_init__()\n" if hasattr(cls, "__post_init__") else ""
        shown = ", ".join(f"{f.name}={{self.{f.name}!r}}" for f in own if f.repr)
        compared = [f.name for f in own if f.compare]
        mine = "(" + "".join(f"self.{n}," for n in compared) + ")"
        theirs = "(" + "".join(f"other.{n}," for n in compared) + ")"
        names = "(" + "".join(f"{f.name!r}," for f in own) + ")"
        source.append(
            f"def init{k}(self, {', '.join(params)}):\n    d = self.__dict__\n{stores}{post}"
            f"def repr{k}(self):\n    return self.__class__.__qualname__ + f\"({shown})\"\n"
            f"def eq{k}(self, other):\n    if other.__class__ is self.__class__:\n"
            f"        return {mine} == {theirs}\n    return NotImplemented\n"
            f"def hash{k}(self):\n    return hash({mine})\n"
            f"def setattr{k}(self, name, value):\n    if type(self) is c{k} or name in {names}:\n"
            f"        raise FrozenInstanceError(f\"cannot assign to field {{name!r}}\")\n"
            f"    super(c{k}, self).__setattr__(name, value)\n"
            f"def delattr{k}(self, name):\n    if type(self) is c{k} or name in {names}:\n"
            f"        raise FrozenInstanceError(f\"cannot delete field {{name!r}}\")\n"
            f"    super(c{k}, self).__delattr__(name)\n")
    return "".join(source)


def add_methods(classes, generated: Optional[ModuleType] = None) -> None:
    """Give each of ``classes`` the methods ``dataclass(frozen=True)`` would (same behaviour):
    from ``generated`` when its ``LAYOUT`` matches the classes, else compiled here."""
    if generated is not None and getattr(generated, "LAYOUT", None) == layout(classes):
        scope = vars(generated)
    else:
        scope = {"FrozenInstanceError": FrozenInstanceError}
        exec(methods_source(classes), scope)
    for k, cls in enumerate(classes):
        scope[f"c{k}"] = cls
        defaults = tuple(f.default for f in fields(cls) if f.default is not MISSING)
        for name in _METHODS:
            method = scope[f"{name}{k}"]
            if name == "init":
                method.__defaults__ = defaults or None
            method.__name__ = f"__{name}__"
            method.__qualname__ = f"{cls.__qualname__}.__{name}__"
            setattr(cls, f"__{name}__", method)


def write_methods(classes, path: Path, module: str) -> str:
    """Write the methods of ``classes`` as a module at ``path`` (``module`` names what it serves);
    returns its text. Run again whenever a class's fields change (a test says when)."""
    text = (f'"""Generated by ticker_py.records.write_methods for {module}: do not edit.\n\n'
            f'Regenerate with ``python -m {module}`` when a node type\'s fields change."""\n\n'
            "# flake8: noqa\nfrom dataclasses import FrozenInstanceError\n\n"
            f"LAYOUT = {layout(classes)!r}\n\n{methods_source(classes)}")
    path.write_text(text)
    return text
