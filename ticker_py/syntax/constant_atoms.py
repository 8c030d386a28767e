"""Accelerator: a line ``p(a0,b0), p(a1,b1), ...`` of atoms with constant arguments split in a few
C-level bytes passes (only while :data:`ticker_py.accelerators.ENABLED`; anything else is left to
:class:`~ticker_py.syntax.ground_atoms.AtomReader`, which gives the same atoms).

The check: the punctuation left when the names are deleted must be one ``(,...,)`` repeated with
``", "`` between, every separator exactly ``"), "`` (counted), so each name stands in its place;
turning ``(`` into ``,`` and deleting ``)`` and spaces leaves the names between single commas, each
of which must start with a lower-case letter; no name may be a keyword.
"""

from __future__ import annotations

from .tokens import KEYWORDS, NAME_START, WORD, ascii_bytes

__all__ = ["split_constants"]
#: the bytes of names (tokens.NAME); everything else in a line of atoms is punctuation
_NAME_BYTES = ascii_bytes(WORD)
_NOT_FIRST = bytes(sorted(set(_NAME_BYTES) - set(ascii_bytes(NAME_START))))
#: name bytes that cannot start a name become ``0``
_CLASSES = bytes.maketrans(_NOT_FIRST, b"0" * len(_NOT_FIRST))
_OPEN_AS_COMMA = bytes.maketrans(b"(", b",")


def split_constants(text: str) -> tuple | None:
    """``(atoms, pairs, distinct)`` (as :class:`~ticker_py.streams.model.Known`) if ``text`` is exactly
    ``name(c1,...,ck), name(...), ...`` with k >= 1 constant arguments and ``", "`` between, else None."""
    if not text.isascii():
        return None
    line = text.encode()
    skeleton = line.translate(None, _NAME_BYTES)
    close = skeleton.find(b")") + 1
    unit = skeleton[:close]
    if close < 2 or unit[0] != 40 or unit.count(b",") != close - 2:  # 40: "("
        return None
    n = (len(skeleton) + 2) // (close + 2)
    if skeleton + b", " != (unit + b", ") * n or line[-1] != 41 or line.count(b"), ") != n - 1:  # 41: ")"
        return None
    joined = line.translate(_OPEN_AS_COMMA, b") ")  # the names between single commas
    classes = joined.translate(_CLASSES)
    if classes[:1] < b"a" or classes.endswith(b",") or b",0" in classes or b",," in classes:
        return None
    parts = joined.decode().split(",")
    if (b"n" in line or b"t" in line or b"y" in line) and not KEYWORDS.isdisjoint(parts):
        return None  # every keyword has an n, t or y
    names = parts[::close]
    if names.count(names[0]) == n:  # one predicate: one string object
        parts[::close] = [names[0]] * n
        pairs = frozenset([(names[0], close)])
    else:
        pairs = frozenset([(name, close) for name in set(names)])
    distinct = n == 1 or len(set(parts[1::close])) == n
    return tuple(zip(*[iter(parts)] * close)), pairs, distinct
