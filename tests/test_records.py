"""Record methods generated ahead of time (``ticker_py/_ast_methods.py``, ``ticker_py/_record_methods.py``)
against compiling them at import and against ``dataclass``, and the golden files against the classes."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from dataclasses import FrozenInstanceError, dataclass, field
from pathlib import Path

import pytest

from ticker_py import ast as A
from ticker_py import records


def test_the_generated_ast_methods_are_current(tmp_path):
    """The checked-in module is what ``python -m ticker_py.ast`` writes for today's node types,
    and the AST uses it (no compiling at import)."""
    text = records.write_methods(A._RECORDS, tmp_path / "m.py", "ticker_py.ast")
    assert (Path(A.__file__).with_name("_ast_methods.py")).read_text() == text
    assert A.Atom.__init__.__module__ == A.Atom._from_fields.__module__ == "ticker_py._ast_methods"


def test_the_shared_record_methods_are_current(tmp_path):
    """The checked-in ``_record_methods.py`` is what ``python -m ticker_py.records`` writes for today's
    record classes of :func:`~ticker_py.records.shared_modules`, and every one of them uses it."""
    modules = records.shared_modules()
    assert {"ticker_py.errors", "ticker_py.engines.native.plan", "ticker_py.cli.run"} <= set(modules)
    groups = {m: importlib.import_module(m)._RECORDS for m in modules}
    text = records.write_shared_methods(groups, tmp_path / "m.py")
    assert (Path(records.__file__).with_name("_record_methods.py")).read_text() == text
    classes = [cls for group in groups.values() for cls in group]
    assert len(classes) >= 11
    assert {cls.__init__.__module__ for cls in classes} == {"ticker_py._record_methods"}


def _classes():
    def post(self):
        if self.n < 0:
            raise ValueError("negative")

    record = records.collecting([], from_fields=True)

    @record
    class Leaf:
        name: str
        n: int = 0
        where: str | None = field(default=None, compare=False, repr=False)
        __post_init__ = post

    @record
    class Node:
        kids: tuple = ()
        tag: str = "x"

    return [Leaf, Node]


def _mutable_classes(decorate):
    @decorate
    class Plan:
        rule: str
        steps: list = field(default_factory=list)
        done: bool = False
        note: str = field(default="", compare=False)

    return [Plan]


def _mutable_behaviour(Plan):
    a, b = Plan("r"), Plan("r", note="x")
    a.steps.append(1)
    a.done = True
    out = [
        repr(a),
        repr(b),
        a == b,
        b == Plan("r"),
        a.steps is not b.steps,
        Plan("r", [2]).steps,
        dataclasses.replace(a, rule="s") == Plan("s", [1], True),
        Plan.__hash__ is None,
        [f.name for f in dataclasses.fields(Plan)],
    ]
    with pytest.raises(TypeError):
        hash(a)
    with pytest.raises(TypeError):
        Plan()
    return out


def test_mutable_records_behave_as_dataclass_ones(tmp_path):
    """``collecting(registry, frozen=False)``: the methods of ``dataclass()`` (no hash, fields
    assignable, a default factory called per instance), generated or compiled."""
    plain = _mutable_classes(dataclass)
    compiled = _mutable_classes(records.collecting([], frozen=False, from_fields=True))
    records.add_methods(compiled)
    generated = _mutable_classes(records.collecting([], frozen=False, from_fields=True))
    module = _module(generated, tmp_path / "gen_mutable.py")
    records.add_methods(generated, module)
    assert generated[0].__init__.__module__ == "gen_mutable"
    expected = _mutable_behaviour(*plain)
    assert _mutable_behaviour(*compiled) == expected == _mutable_behaviour(*generated)
    for Plan in compiled + generated:
        made = Plan._from_fields("r", [1], True, "y")
        assert made == Plan("r", [1], True) and made.note == "y"
    without = _mutable_classes(records.collecting([], frozen=False))
    records.add_methods(without)
    assert not hasattr(without[0], "_from_fields")  # only where asked for: each function costs start-up
    name = plain[0].__qualname__
    assert expected[:3] == [
        f"{name}(rule='r', steps=[1], done=True, note='')",
        f"{name}(rule='r', steps=[], done=False, note='x')",
        False,
    ]


def test_shared_methods_are_found_by_module_name(tmp_path):
    """``write_shared_methods`` numbers the classes of several modules on; each module's classes
    take theirs by its name, and a name the module does not list compiles them."""
    first, second = _classes(), _mutable_classes(records.collecting([], frozen=False))
    path = tmp_path / "shared.py"
    records.write_shared_methods({"one": first, "two": second}, path)
    spec = importlib.util.spec_from_file_location("shared", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.LAYOUTS["two"][0] == len(first)
    records.add_methods(first, module, "one")
    records.add_methods(second, module, "two")
    assert {cls.__init__.__module__ for cls in first + second} == {"shared"}
    assert _mutable_behaviour(*second) == _mutable_behaviour(*_mutable_classes(dataclass))
    other = _classes()
    records.add_methods(other, module, "three")
    assert other[0].__init__.__module__ != "shared"
    assert _behaviour(*other) == _behaviour(*first)


def _module(classes, path: Path):
    records.write_methods(classes, path, "test")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _behaviour(Leaf, Node):
    a, b = Leaf("p", 1, where="here"), Leaf("p", 1)
    out = [
        repr(a),
        repr(Node((a,))),
        a == b,
        hash(a) == hash(b),
        a == Leaf("p", 2),
        a == ("p", 1),
        Node() == Node((), "x"),
        repr(Node(tag="y")),
        dataclasses.replace(a, n=5) == Leaf("p", 5),
        Leaf._from_fields("p", 1, "here") == a,
        repr(Leaf._from_fields("q", -1, None)),  # no __post_init__
        Node._from_fields((), "x") == Node(),
        Leaf._from_fields("p", 1, None).where,
    ]
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
    assert _behaviour(*compiled)[:3] == [
        f"{leaf}(name='p', n=1)",
        f"{node}(kids=({leaf}(name='p', n=1),), tag='x')",
        True,
    ]


def test_a_stale_generated_module_is_not_used(tmp_path):
    module = _module(_classes()[:1], tmp_path / "stale.py")  # written for one class only
    classes = _classes()
    records.add_methods(classes, module)
    assert classes[0].__init__.__module__ != "stale"
    assert _behaviour(*classes)[2] is True
