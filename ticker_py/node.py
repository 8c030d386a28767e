"""Frozen, slotted values with declared fields: the base of the AST's nodes and the stream model's records.

A subclass declares its fields by annotations (strings: ``from __future__ import annotations``), each
with an optional default or a :func:`field` that equality, hashing and ``repr`` leave out. The objects
behave as the frozen dataclass of the same fields, but the base's one generic ``__init__``, ``__eq__``,
``__hash__``, ``__repr__`` and :meth:`Node.replace` read the class's ``_fields``: no method is compiled
per class (``dataclass(frozen=True)`` compiles six).
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from operator import attrgetter

__all__ = ["Node", "field"]


class _Field:
    """A field's default and whether equality and ``repr`` read it."""

    __slots__ = ("default", "compare", "repr")

    def __init__(self, default, compare: bool, repr: bool):
        self.default, self.compare, self.repr = default, compare, repr


#: a field without a default
_REQUIRED = object()


def field(*, default=_REQUIRED, compare: bool = True, repr: bool = True) -> _Field:
    """A field's declaration, as :func:`dataclasses.field` (without factories)."""
    return _Field(default, compare, repr)


class _NodeType(type):
    """Makes each annotated name of a class body a slot and a field (after the base class's)."""

    def __new__(mcls, name, bases, namespace):
        own = {}
        for attr in namespace.get("__annotations__", {}):
            value = namespace.pop(attr, _REQUIRED)
            own[attr] = value if isinstance(value, _Field) else _Field(value, True, True)
        namespace["__slots__"] = (*own, *namespace.get("__slots__", ()))
        cls = super().__new__(mcls, name, bases, namespace)
        specs = {**getattr(cls, "_specs", {}), **own}
        cls._specs = specs
        cls._fields = tuple(specs)
        cls._setters = tuple(getattr(cls, attr).__set__ for attr in specs)
        cls._shown = tuple(attr for attr, spec in specs.items() if spec.repr)
        compared = [attr for attr, spec in specs.items() if spec.compare]
        cls._key = staticmethod(attrgetter(*compared) if len(compared) > 1 else _one_key(*compared))
        # the defaults of the last k fields, where they all have one, keyed by the number of the others
        defaults, tails = (), {len(specs): ()}
        for k, spec in reversed(list(enumerate(specs.values()))):
            if spec.default is _REQUIRED:
                break
            defaults = (spec.default, *defaults)
            tails[k] = defaults
        cls._tails = tails
        cls._post = hasattr(cls, "__post_init__")
        cls.__match_args__ = cls._fields
        return cls


def _one_key(*names):
    """The key of a class with at most one compared field: a tuple, as ``attrgetter`` gives for more
    (so that a node hashes as the frozen dataclass of the same fields)."""
    if not names:
        return lambda node: ()
    get = attrgetter(*names)
    return lambda node: (get(node),)


class Node(metaclass=_NodeType):
    """The base of frozen, slotted values with declared fields (see the module's text)."""

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        if kwargs or len(args) not in self._tails:
            args = self._bind(args, kwargs)
        elif len(args) < len(self._fields):
            args += self._tails[len(args)]
        for store, value in zip(self._setters, args):
            store(self, value)
        if self._post:
            self.__post_init__()

    def _bind(self, args: tuple, kwargs: dict) -> tuple:
        """Every field's value from positional and keyword arguments and the defaults."""
        cls, fields = type(self), self._fields
        if len(args) > len(fields):
            raise TypeError(f"{cls.__qualname__}() takes {len(fields)} arguments but {len(args)} were given")
        values = dict(zip(fields, args))
        for name, value in kwargs.items():
            if name not in self._specs:
                raise TypeError(f"{cls.__qualname__}() got an unexpected keyword argument {name!r}")
            if name in values:
                raise TypeError(f"{cls.__qualname__}() got multiple values for argument {name!r}")
            values[name] = value
        missing = [n for n in fields if n not in values and self._specs[n].default is _REQUIRED]
        if missing:
            raise TypeError(f"{cls.__qualname__}() missing required arguments: {', '.join(map(repr, missing))}")
        return tuple(values[n] if n in values else self._specs[n].default for n in fields)

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._key(self) == other._key(other)
        return NotImplemented

    def __hash__(self):
        return hash(self._key(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._shown)
        return f"{type(self).__qualname__}({shown})"

    def __reduce__(self):
        return type(self), tuple(getattr(self, name) for name in self._fields)

    def replace(self, **changes):
        """A copy with ``changes`` (field name: new value), as :func:`dataclasses.replace`."""
        for name in self._fields:
            if name not in changes:
                changes[name] = getattr(self, name)
        return type(self)(**changes)
