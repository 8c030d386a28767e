"""The warnings clingo gives as "atom does not occur in any rule head" and "no atoms over signature
occur in program": a body predicate that no rule derives, no fact gives and the stream never
carried can never hold, and a ``#show`` of a predicate nothing has shows nothing; most often a typo.
"""

from __future__ import annotations

import difflib

from ..errors import Diagnostic
from ..syntax.directives import in_source_order

__all__ = ["never_given", "LIVE_WARN_AFTER"]

#: A live stream may never end: its warnings come after this many time points (docs/live.md)
LIVE_WARN_AFTER = 100


def never_given(analysis, seen: set | None, within: int | None = None) -> list:
    """Warnings, in source order, for each body predicate and each ``#show`` of a predicate in no
    rule, no fact and not in ``seen`` (the stream's ``(name, arity)`` pairs, of its first ``within``
    time points if it goes on), with a "did you mean". ``seen`` None (``ticker check``): any may
    come from the stream, so only those with a "did you mean" are warned."""
    rename = analysis.renamed.get
    background = {atom[0] for atom in analysis.background}
    first: dict = {}  # (name, arity) -> its first body atom
    readers: dict = {}  # (name, arity) -> the heads of the rules reading it: never its typo
    given: set = set()  # (name, arity) of rule heads and facts
    for rule in analysis.program.rules:
        head = rule.head.atom if rule.head is not None else None
        heads = {(rename(head.predicate, head.predicate), len(head.args))} if head is not None else set()
        given |= heads
        for lit in rule.body:
            if lit.is_comparison:
                continue
            atom = lit.element.atom
            if atom.predicate in analysis.intensional or atom.predicate in background:
                continue
            sig = (rename(atom.predicate, atom.predicate), len(atom.args))
            first.setdefault(sig, atom)
            readers.setdefault(sig, set()).update(heads)
    stream = set() if seen is None else seen
    program = analysis.predicates
    missing = [sig for sig in first if sig not in stream]
    shown = [(sig, at) for sig, at in analysis.program.show_at if sig not in program and sig not in stream]
    if not missing and not shown:
        return []
    known = given if seen is None else (program | stream) - set(missing)
    if seen is None:
        text, held, what = "", "holds only if the stream gives it", "shows only what the stream gives"
    elif within is None:
        text, held, what = " and no stream atom", "never holds", "shows nothing"
    else:
        text, held, what = f" and no stream atom of the first {within} time points", "has not held", "has shown nothing"
    nowhere = f"no rule head, no fact{text}" if text else "no rule head and no fact"
    out, close = [], _Close(known)
    for sig in missing:
        atom = first[sig]
        suggestion = close(sig, readers[sig])
        if suggestion is not None or seen is not None:
            out.append(
                _warning(
                    f"'{sig[0]}/{sig[1]}' is in {nowhere}: '{atom.replace(predicate=sig[0])}' {held}",
                    atom.location,
                    suggestion,
                )
            )
    close_shown = _Close(known | program) if shown else None
    for (name, arity), at in shown:
        suggestion = close_shown((name, arity))
        if suggestion is not None or seen is not None:
            out.append(_warning(f"no atom of '{name}/{arity}' in the program{text}: this #show {what}", at, suggestion))
    files = {rule.location.file: None for rule in analysis.program.rules if rule.location is not None}
    return in_source_order(out, files)  # the files in the order their rules are


class _Close:
    """A "did you mean" among ``known`` predicates: one of the same name (another arity), else of a
    close name; beyond :data:`_MANY` predicates only names with the same first letter (a typo
    seldom changes it; comparing every pair is quadratic)."""

    def __init__(self, known: set):
        self.arities: dict = {}
        self.texts: dict = {}  # first letter (or "" for all) -> [(text, (name, arity))]
        for n, k in sorted(known):
            self.arities.setdefault(n, []).append(k)
            self.texts.setdefault(n[:1] if len(known) > _MANY else "", []).append((f"{n}/{k}", (n, k)))
        self.many = len(known) > _MANY

    def __call__(self, sig: tuple, unless: set = frozenset()) -> str | None:
        name, arity = sig
        same = [k for k in self.arities.get(name, ()) if k != arity and (name, k) not in unless]
        if same:
            return f"{name}/{same[0]}"
        pool = [text for text, p in self.texts.get(name[:1] if self.many else "", ()) if p not in unless]
        close = difflib.get_close_matches(f"{name}/{arity}", pool, n=1, cutoff=0.75)
        return close[0] if close else None


#: more known predicates than this: a "did you mean" compares only names with the same first letter
_MANY = 500


def _warning(message: str, location, suggestion: str | None) -> Diagnostic:
    notes = (f"did you mean '{suggestion}'?",) if suggestion is not None else ()
    return Diagnostic(message, location, notes, kind="warning")
