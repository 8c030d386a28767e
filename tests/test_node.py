"""The slotted node base (``ticker_py/node.py``): every class built on it (the AST's node types and
the stream model's records) behaves as the frozen dataclass of the same fields."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

import ticker_py.ast  # noqa: F401 - the classes below are collected from Node's subclasses
import ticker_py.streams.model  # noqa: F401
from ticker_py.node import Node, field


def _classes(base=Node) -> list:
    found = []
    for cls in base.__subclasses__():
        if cls.__module__.startswith("ticker_py."):
            found.append(cls)
        found += _classes(cls)
    return found


CLASSES = _classes()


def _reference(cls):
    """The class as ``dataclass(frozen=True)`` builds it, with the same fields."""
    specs = [
        (
            name,
            object,
            dataclasses.field(compare=spec.compare, repr=spec.repr)
            if spec.default is field().default
            else dataclasses.field(default=spec.default, compare=spec.compare, repr=spec.repr),
        )
        for name, spec in cls._specs.items()
    ]
    # a class's own __post_init__ and __repr__ (dataclass keeps a __repr__ the class defines)
    # and the methods such a __repr__ may call
    namespace = {
        name: value
        for name, value in vars(cls).items()
        if name in ("__post_init__", "__repr__") or (not name.startswith("__") and callable(value))
    }
    return dataclasses.make_dataclass(cls.__name__, specs, frozen=True, namespace=namespace)


def test_the_node_classes_are_found():
    names = {cls.__name__ for cls in CLASSES}
    assert {"Location", "Atom", "Iri", "Rule", "Program", "Record", "TimePoint", "Model", "Result"} <= names


def _repr(obj) -> str:
    """``repr(obj)``, or the error it raises: a class's own ``__repr__`` (Model's) cannot print the
    placeholder field values, and the reference must raise the same."""
    try:
        return repr(obj)
    except (TypeError, ValueError) as e:
        return f"{type(e).__name__} from __repr__"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_node_classes_behave_as_frozen_dataclasses(cls):
    ref = _reference(cls)
    names = list(cls._fields)
    required = [n for n in names if cls._specs[n].default is field().default]
    value = {"modality": ticker_py.ast.DIAMOND}  # ExtendedAtom checks its modality
    args = [value.get(n, (n, 1)) for n in names]
    other = [value.get(n, (n, 2)) for n in names]
    ours, theirs = cls(*args), ref(*args)
    assert _repr(ours) == _repr(theirs) and hash(ours) == hash(theirs)
    assert [getattr(cls(*args[: len(required)]), n) for n in names] == [
        getattr(ref(*args[: len(required)]), n) for n in names
    ]
    for i, name in enumerate(names):  # equal unless a compared field differs
        changed = args[:i] + [other[i]] + args[i + 1 :]
        assert (ours == cls(*changed)) == (theirs == ref(*changed)), name
        assert (hash(ours) == hash(cls(*changed))) == (hash(theirs) == hash(ref(*changed))), name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(ours, name, 0)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(ours, name)
    assert ours != theirs and (ours == 1) is False
    assert ours.replace(**{names[0]: other[0]}) == cls(*other[:1], *args[1:])
    assert _repr(ours.replace(**{names[0]: other[0]})) == _repr(dataclasses.replace(theirs, **{names[0]: other[0]}))
    for back in (pickle.loads(pickle.dumps(ours)), copy.copy(ours), copy.deepcopy(ours)):
        assert back == ours and [getattr(back, n) for n in names] == args  # uncompared fields too
    assert cls(**dict(zip(names, args))) == ours
    assert not hasattr(ours, "__dict__")  # slotted


class Leaf(Node):
    name: str
    n: int = 0
    where: str | None = field(default=None, compare=False, repr=False)


class Marked(Leaf):
    mark: str = "x"
    __slots__ = ("cache",)  # a slot that is not a field

    def __post_init__(self):
        if self.n < 0:
            raise ValueError("negative")


def test_fields_defaults_and_arguments():
    assert Leaf._fields == ("name", "n", "where") and Marked._fields == ("name", "n", "where", "mark")
    assert Leaf("p") == Leaf("p", 0, "elsewhere") == Leaf(name="p", where="here")
    assert repr(Marked("p", 1, "here")) == "Marked(name='p', n=1, mark='x')"
    assert Marked("p") != Leaf("p") and Leaf("p") != Marked("p")  # the class is compared too
    assert Marked("p", where="w", mark="y").mark == "y" and Marked("p", mark="y").where is None
    with pytest.raises(ValueError, match="negative"):  # __post_init__ runs after the fields are set
        Marked("p", -1)
    with pytest.raises(TypeError, match="missing required arguments: 'name'"):
        Leaf()
    with pytest.raises(TypeError, match="missing required arguments: 'name'"):
        Leaf(n=1)
    with pytest.raises(TypeError, match="takes 3 arguments but 4 were given"):
        Leaf("p", 1, None, 2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'm'"):
        Leaf("p", m=1)
    with pytest.raises(TypeError, match="multiple values for argument 'name'"):
        Leaf("p", name="q")


def test_frozen_slotted_and_extra_slots():
    leaf = Marked("p", 1, "here")
    for name in ("name", "other"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(leaf, name, 2)
    object.__setattr__(leaf, "cache", [1])  # the class's own cache slot
    assert leaf.cache == [1] and leaf == Marked("p", 1)
    with pytest.raises(AttributeError):
        object.__setattr__(leaf, "other", 1)
    assert leaf.replace(n=2) == Marked("p", 2) and leaf.replace(n=2).where == "here"
    assert not hasattr(pickle.loads(pickle.dumps(leaf)), "cache")  # the cache is not a field
    with pytest.raises(ValueError):
        leaf.replace(n=-1)
