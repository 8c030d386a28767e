"""Printed atoms, built once and reused across evaluation points (what the writers print)."""

from __future__ import annotations

import csv
import io
import re
from itertools import filterfalse
from json.encoder import encode_basestring_ascii
from types import GeneratorType

from ..values import format_atom
from .model import Model, Result

__all__ = ["AtomTexts", "printed_models"]


_ESCAPED = re.compile(r'[\x00-\x1f"\\]')


class AtomTexts:
    """Printed atoms: ``text[atom]`` is ``format_atom(atom)``, ``json[text]`` its JSON string,
    ``csv[text]`` its CSV field, each computed on first use, in generational caches (flat memory)."""

    def __init__(self, limit: int = 1 << 12):
        self.limit = limit
        self.text, self.json, self.csv = _Cache(self._format), _Cache(encode_basestring_ascii), _Cache(_csv_field)
        self.escaped = 0  # texts seen whose JSON string is not just the text in quotes
        self._last_atoms: frozenset = frozenset()
        self._last_sorted: list = []
        self._keys: dict = {}

    def room(self, answer: int) -> None:
        """Start new generations of the caches that outgrew an answer of ``answer`` atoms
        (called between two results, never while texts of one are looked up)."""
        bound = self.limit + 2 * answer
        for cache in (self.text, self.json, self.csv):
            if len(cache) > bound:
                cache.age()

    def sorted(self, atoms: frozenset) -> list:
        """``sorted(format_atom(a) for a in atoms)``, merged from the previous answer's sorted texts
        when the answer changed a little (do not change the list: it is reused)."""
        text = self.text.__getitem__
        self.room(len(atoms))
        last = self._last_atoms
        if atoms is last:
            return self._last_sorted
        removed = last - atoms if last else last
        if last and len(removed) < len(atoms) // 2:
            kept = self._last_sorted
            if removed:
                kept = list(filterfalse(set(map(text, removed)).__contains__, kept))
            added = sorted(map(text, atoms - last))
            out = sorted(kept + added) if added else kept  # two sorted runs: a linear merge
        else:
            out = sorted(map(text, atoms))
        self._last_atoms, self._last_sorted = atoms, out
        return out

    def key(self, model, pins: bool = True) -> tuple:
        """``model.printed_key(pins=pins)`` from these texts; kept for small answers (they recur), a
        large answer's atoms sorted by :meth:`sorted`."""
        if len(model.atoms) >= 256:
            return tuple(self.sorted(model.atoms)), self.pinned(model.pinned) if pins else ()
        k = model if pins and model.pinned else model.atoms
        known = self._keys.get(k)
        if known is None:
            if len(self._keys) >= 4096:
                self._keys.clear()
            self.room(len(model.atoms))
            known = self._keys[k] = model.printed_key(self.text.__getitem__, pins)
        return known

    def printed(self, models, show_at: bool = False) -> list:
        """:func:`printed_models` of ``models``."""
        if len(models) == 1:
            return [self.key(models[0], show_at)]
        return sorted({self.key(m, show_at) for m in models})

    def _format(self, atom: tuple) -> str:
        text = format_atom(atom)
        if not self.escaped and (not text.isascii() or _ESCAPED.search(text)):
            self.escaped = 1
        return text

    def json_list(self, texts) -> str:
        """``json.dumps(list(texts))``, from cached JSON strings (or one join while no text
        of this run needed escaping)."""
        if not self.escaped and type(texts) is not GeneratorType:
            return '["' + '", "'.join(texts) + '"]' if texts else "[]"
        return "[" + ", ".join(map(self.json.__getitem__, texts)) + "]"

    def pinned(self, pinned: frozenset) -> tuple:
        """``Model.sorted_pinned()``: ``"a(y) at 5"`` sorted by time, then text."""
        return Model(frozenset(), pinned).printed_key(self.text.__getitem__)[1]


class _Cache(dict):
    """A dict that computes a missing value with ``make(key)`` and keeps it, in generations:
    :meth:`age` makes the entries the old generation, which a lookup moves back (no new
    ``make``) and the next :meth:`age` drops."""

    def __init__(self, make):
        super().__init__()
        self.make = make
        self.old: dict = {}

    def __missing__(self, key):
        value = self.old.pop(key, _NONE)
        if value is _NONE:
            value = self.make(key)
        self[key] = value
        return value

    def age(self) -> None:
        """Start a new generation (the entries not used since the previous one are dropped)."""
        self.old = dict(self)
        self.clear()


_NONE = object()


def _csv_field(text: str) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow((text,))
    return out.getvalue()[:-1]


def printed_models(result: Result, show_at: bool = False) -> list:
    """The answer streams of ``result`` as printed, ``[Model.printed_key(), ...]`` (pins only with
    ``show_at``) in printed order; models that print the same appear once."""
    return AtomTexts().printed(result.models, show_at)
