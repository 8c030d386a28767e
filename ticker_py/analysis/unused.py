"""The warning clingo gives as "atom does not occur in any rule head": a body predicate that no
rule derives, no fact gives and the stream never carried can never hold, most often a typo."""

from __future__ import annotations

import difflib

from .. import ast
from ..errors import Diagnostic

__all__ = ["never_given", "LIVE_WARN_AFTER"]

#: A live stream may never end: its warnings come after this many time points (docs/live.md)
LIVE_WARN_AFTER = 100


def never_given(analysis, seen: set, within: int | None = None) -> list:
    """Warnings (``Diagnostic`` of kind ``warning``), in source order, for each predicate read in a
    rule body that is in no rule head, no fact and not in ``seen`` (the ``(name, arity)`` pairs of
    the stream); each with a "did you mean" when a known predicate has a close name. ``within``:
    ``seen`` holds the first so many time points of a stream that goes on (the text says so)."""
    rename = analysis.renamed.get
    background = {atom[0] for atom in analysis.background}
    first: dict = {}  # (name, arity) -> its first body atom
    readers: dict = {}  # (name, arity) -> the heads of the rules reading it: never its typo
    for rule in analysis.program.rules:
        head = rule.head.atom if rule.head is not None else None
        heads = {(rename(head.predicate, head.predicate), len(head.args))} if head is not None else set()
        for lit in rule.body:
            if lit.is_comparison:
                continue
            atom = lit.element.atom
            if atom.predicate in analysis.intensional or atom.predicate in background:
                continue
            sig = (rename(atom.predicate, atom.predicate), len(atom.args))
            first.setdefault(sig, atom)
            readers.setdefault(sig, set()).update(heads)
    missing = [sig for sig in first if sig not in seen]
    if not missing:
        return []
    known = {(rename(name, name), arity) for name, arity in analysis.signatures.items()} | set(seen)
    stream, held = (
        ("no stream atom", "never holds")
        if within is None
        else (f"no stream atom of the first {within} time points", "has not held")
    )
    out = []
    for name, arity in missing:
        atom = first[(name, arity)]
        skip = readers[(name, arity)] | set(missing)
        others = {f"{n}/{k}" for n, k in known if (n, k) not in skip}  # skip holds (name, arity) too
        close = difflib.get_close_matches(f"{name}/{arity}", sorted(others), n=1, cutoff=0.75)
        notes = (f"did you mean '{close[0]}'?",) if close else ()
        out.append(
            Diagnostic(
                f"'{name}/{arity}' is in no rule head, no fact and {stream}: '{_shown(atom, name)}' {held}",
                atom.location,
                notes,
                kind="warning",
            )
        )
    return out


def _shown(atom: ast.Atom, name: str) -> str:
    return str(atom.replace(predicate=name))
