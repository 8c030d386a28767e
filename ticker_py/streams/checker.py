"""The checks of stream atoms that need the program: extensional predicates, one arity per name."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator

from ..errors import Diagnostic, StreamError
from ..values import format_atom
from .lines import stream_error
from .model import Record

__all__ = ["StreamChecker"]

_first = operator.itemgetter(0)


def _pairs(atoms) -> set:
    """The (name, tuple length) pairs of ``atoms``; when all have one length (the usual case),
    from their distinct names alone."""
    lengths = set(map(len, atoms))
    if len(lengths) == 1:
        length = lengths.pop()
        return {(name, length) for name in set(map(_first, atoms))}
    return set(zip(map(_first, atoms), map(len, atoms)))


class StreamChecker:
    """Checks stream atoms against the program: extensional predicates, consistent arities.

    ``signatures`` maps predicate names to arities from the program; ``intensional`` holds
    the names of intensional predicates. Names first seen in the stream are learned.
    """

    def __init__(self, signatures: dict, intensional: set):
        self.intensional = set(intensional)
        self.known = {name: (arity, "the program") for name, arity in signatures.items()}
        self.passed: set = set()  # (name, len(atom)) pairs that passed: a record of only those passes at once
        self.last: tuple = ()  # the atoms of the last record that passed (a reader may repeat them)

    def check(self, record: Record) -> Record:
        """Return ``record`` unchanged, or raise a StreamError located at its line."""
        atoms = record.atoms
        if atoms is self.last:
            return record
        known = record.known
        if (known is not None and self.passed.issuperset(known.pairs)) or self.passed.issuperset(_pairs(atoms)):
            self.last = atoms
            return record
        for atom in atoms:  # in order: the first bad atom is reported, names are learned
            name, arity = atom[0], len(atom) - 1
            if (name, len(atom)) in self.passed:
                continue
            known = self.known.get(name)
            if name in self.intensional:
                shown = known[0] if known else arity
                raise stream_error(
                    record.source, record.line, 1, f"intensional predicate '{name}/{shown}' in the stream"
                )
            if known is None:
                self.known[name] = (arity, f"{record.source}:{record.line}")
            elif known[0] != arity:
                raise stream_error(
                    record.source,
                    record.line,
                    1,
                    f"predicate '{name}' with arity {arity} in '{format_atom(atom)}',"
                    f" but arity {known[0]} in {known[1]}",
                )
            self.passed.add((name, len(atom)))
        self.last = atoms
        return record

    def records(self, records: Iterable[Record], start: int = 0, until: int | None = None) -> Iterator[Record]:
        """The records, checked, up to time ``until``; raises StreamError at the first one that
        fails :meth:`check` or goes back in time (from ``start``)."""
        cur = start
        for rec in records:
            if until is not None and rec.t > until:
                return
            self.check(rec)
            if rec.t < cur:
                raise StreamError(Diagnostic(f"time {rec.t} after time {cur}: time must not decrease"))
            cur = rec.t
            yield rec
