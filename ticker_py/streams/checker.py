"""The checks of stream atoms that need the program: no intensional atoms; arities the program
does not use (a warning); which predicates the stream carried (for the end-of-run warnings)."""

from __future__ import annotations

import operator
import warnings

from ..ast import Location
from ..errors import Diagnostic, TickerWarning
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
    """Checks stream atoms against the program (as :class:`~ticker_py.analysis.Analysis` has it): an
    intensional atom is an error, a name the program uses with another arity a warning (once)."""

    def __init__(self, signatures: dict, intensional: set, renamed: dict | None = None):
        renamed = renamed or {}
        original = {name: renamed.get(name, name) for name in signatures}
        self.program = {(original[name], arity) for name, arity in signatures.items()}
        self.intensional = {(original[name], signatures[name]) for name in intensional if name in signatures}
        self.arities: dict = {}  # name -> the arities the program uses, sorted
        for name, arity in sorted(self.program):
            self.arities.setdefault(name, []).append(arity)
        #: the (name, arity) pairs of the stream whose name the program uses with other arities
        self.foreign: list = []
        self.passed: set = set()  # (name, len(atom)) pairs that passed: a record of only those passes at once
        self.last: tuple = ()  # the atoms of the last record that passed (a reader may repeat them)

    @classmethod
    def of(cls, analysis) -> StreamChecker:
        """The checker of an :class:`~ticker_py.analysis.Analysis`' program."""
        return cls(analysis.signatures, analysis.intensional, analysis.renamed)

    def seen(self) -> set:
        """The ``(name, arity)`` predicates of the atoms checked so far."""
        return {(name, length - 1) for name, length in self.passed}

    def check(self, record: Record) -> Record:
        """Return ``record`` unchanged, or raise a StreamError located at its line."""
        atoms = record.atoms
        if atoms is self.last:
            return record
        known = record.known
        if (known is not None and self.passed.issuperset(known.pairs)) or self.passed.issuperset(_pairs(atoms)):
            self.last = atoms
            return record
        for atom in atoms:  # in order: the first bad atom is reported
            name, arity = atom[0], len(atom) - 1
            if (name, len(atom)) in self.passed:
                continue
            if (name, arity) in self.intensional:
                raise stream_error(
                    record.source, record.line, 1, f"intensional predicate '{name}/{arity}' in the stream"
                )
            used = self.arities.get(name)
            if used is not None and arity not in used:
                self.foreign.append((name, arity))
                line = max(record.line, 1)
                shown = " and ".join(f"{name}/{k}" for k in used)
                message = f"'{name}/{arity}' in the stream, but the program uses {shown}"
                note = f"no rule reads {name}/{arity}: a predicate is a name and an arity"
                diag = Diagnostic(message, Location(record.source, line, 1, line, 2), (note,), kind="warning")
                # one place: two checkers of one stream (live input, then the reasoner) warn once
                warnings.warn(TickerWarning(diag), stacklevel=1)
            self.passed.add((name, len(atom)))
        self.last = atoms
        return record
