"""Record methods generated ahead of time (``ticker_py/_ast_methods.py``) against compiling them at
import, and the golden file against the AST's node types."""

from __future__ import annotations

import dataclasses
import importlib.util
from dataclasses import FrozenInstanceError, dataclass, field
from pathlib import Path
from typing import Optional

import pytest

from ticker_py import ast as A
from ticker_py import records


def test_the_generated_ast_methods_are_current(tmp_path):
    """The checked-in module is what ``python -m ticker_py.ast`` writes for today's node types,
    and the AST uses it (no compiling at import)."""
    text = records.write_methods(A._RECORDS, tmp_path / "m.py", "ticker_py.ast")
    assert (Path(A.__file__).with_name("_ast_methods.py")).read_text() == text
    assert A.Atom.__init__.__module__ == "ticker_py._ast_methods"


def _classes():
    def post(self):
        if self.n < 0:
            raise ValueError("negative")

    @dataclass(init=False, repr=False, eq=False)
    class Leaf:
        name: str
        n: int = 0
        where: Optional[str] = field(default=None, compare=False, repr=False)
        __post_init__ = post

    @dataclass(init=False, repr=False, eq=False)
    class Node:
        kids: tuple = ()
        tag: str = "x"

    return [Leaf, Node]


def _module(classes, path: Path):
    records.write_methods(classes, path, "test")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _behaviour(Leaf, Node):
    a, b = Leaf("p", 1, where="here"), Leaf("p", 1)
    out = [repr(a), repr(Node((a,))), a == b, hash(a) == hash(b), a == Leaf("p", 2), a == ("p", 1),
           Node() == Node((), "x"), repr(Node(tag="y")), dataclasses.replace(a, n=5) == Leaf("p", 5)]
    for act in (lambda: setattr(a, "n", 3), lambda: delattr(a, "name"), lambda: setattr(a, "new", 1)):
        with pytest.raises(FrozenInstanceError):
            act()
    with pytest.raises(ValueError):
        Leaf("q", -1)
    with pytest.raises(TypeError):
        Leaf()
    return out


def test_generated_methods_behave_as_compiled_ones(tmp_path):
    compiled = _classes()
    records.add_methods(compiled)
    generated = _classes()
    module = _module(generated, tmp_path / "gen.py")
    records.add_methods(generated, module)
    assert generated[0].__init__.__module__ == "gen"  # taken from the module, not compiled
    assert _behaviour(*generated) == _behaviour(*compiled)
    leaf, node = (cls.__qualname__ for cls in compiled)
    assert _behaviour(*compiled)[:3] == [f"{leaf}(name='p', n=1)", f"{node}(kids=({leaf}(name='p', n=1),), tag='x')",
                                         True]


def test_a_stale_generated_module_is_not_used(tmp_path):
    module = _module(_classes()[:1], tmp_path / "stale.py")  # written for one class only
    classes = _classes()
    records.add_methods(classes, module)
    assert classes[0].__init__.__module__ != "stale"
    assert _behaviour(*classes)[2] is True
