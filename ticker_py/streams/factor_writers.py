"""Writers for factorized results (``--factorize``): JSON Lines, text, CSV, changes, DataFrame.

JSON Lines: ``{"t": 7, "c": 3, "count": 4, "common": ["a"], "factors": [[["b"], ["c"]], [["d"], []]]}``
(``count`` a string beyond 2**53). Text: ``t=7 c=3: 4 answer streams: {a} * ({b} | {c}) * ({d} | {})``.
CSV and DataFrame: columns ``t, c, factor, alternative, atom``; the common part is factor 0 with
the one alternative 0, the factors are numbered from 1; no answer stream is one row with factor
None. Atoms are sorted, factors and alternatives in their printed order (as :class:`Factorized`
holds them: factor ``i + 1`` is ``factors[i]``, alternative ``k`` its ``k``-th); with ``show_at`` pins
follow the atoms as ``"a(y) at 5"``.
See docs/formats.md.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable

from ..errors import UsageError
from ..values import format_atom
from .factorized import JSON_SAFE, with_factors
from .model import Model, Result
from .writers import ChangesWriter, NoneWriter, Writer, make_writer

__all__ = [
    "printed_factors",
    "factor_rows",
    "FactorJsonlWriter",
    "FactorTextWriter",
    "FactorCsvWriter",
    "FactorChangesWriter",
    "FACTOR_FORMATS",
    "make_factor_writer",
    "factors_to_dataframe",
]


class _Printer:
    """Formats atoms with a cache (a tick's atoms mostly recur at the next)."""

    def __init__(self, show_at: bool):
        self.show_at = show_at
        self.texts: dict = {}
        self.last = (None, None)  # the previous common part and its printed form (it mostly recurs)
        self.previous = (None, None)  # the previous factorized answer and its printed form

    def atom(self, a) -> str:
        s = self.texts.get(a)
        if s is None:
            if len(self.texts) > 200_000:
                self.texts.clear()
            s = self.texts[a] = format_atom(a)
        return s

    def part(self, m: Model) -> list:
        atoms = sorted(self.atom(a) for a in m.atoms)
        if self.show_at and m.pinned:
            atoms += [f"{s} at {T}" for T, s in sorted((T, self.atom(a)) for a, T in m.pinned)]
        return atoms

    def factors(self, result: Result) -> tuple:
        """``(count, common, factors)`` as printed (see :func:`printed_factors`); the same
        factorized answer as the previous result's (engines reuse it while it recurs) is
        printed once."""
        f = result.factors
        if f is not self.previous[0]:
            p = f.printed(self.show_at)
            self.previous = (f, (p.count, self.common(p.common), [[self.part(m) for m in alts] for alts in p.factors]))
        return self.previous[1]

    def common(self, m: Model) -> list:
        if self.last[0] != m:
            self.last = (m, self.part(m))
        return self.last[1]


def printed_factors(result: Result, show_at: bool = False) -> tuple:
    """``(count, common, factors)`` of a factorized result as printed: atom strings, each
    alternative sorted, factors and alternatives in :class:`Factorized`'s (printed) order; pins only
    with ``show_at`` (answer streams that print the same are one)."""
    return _Printer(show_at).factors(result)


def factor_rows(result: Result, show_at: bool = False, printer=None) -> Iterable[tuple]:
    """Rows ``(t, c, factor, alternative, atom)`` of one factorized result (None: absent)."""
    count, common, factors = (printer or _Printer(show_at)).factors(result)
    t, c = result.t, result.c
    if not count:
        yield t, c, None, None, None
        return
    for factor, alts in enumerate([[common]] + factors):
        for k, atoms in enumerate(alts):
            for atom in atoms or (None,):
                yield t, c, factor, k, atom


def _factorized(result: Result) -> Result:
    return result if result.factors is not None else with_factors(result)


class FactorJsonlWriter(Writer):
    """``{"t", "c", "count", "common", "factors"}`` per result."""

    def __init__(self, out, show_at=False):
        super().__init__(out, show_at)
        self.printer = _Printer(show_at)
        self.last = (None, None)  # the previous printed answer and its JSON text after "c"

    def lines(self, result):
        printed = self.printer.factors(_factorized(result))
        if self.last[0] is not printed:
            count, common, factors = printed
            number = count if count <= JSON_SAFE else f'"{count}"'
            self.last = (
                printed,
                f'"count": {number}, "common": {json.dumps(common)}, "factors": {json.dumps(factors)}}}',
            )
        yield f'{{"t": {result.t}, "c": {result.c}, {self.last[1]}'


class FactorTextWriter(Writer):
    """``t=7 c=3: 4 answer streams: {a} * ({b} | {c})`` or ``t=7 c=3: no answer stream``."""

    def __init__(self, out, show_at=False):
        super().__init__(out, show_at)
        self.printer = _Printer(show_at)

    def lines(self, result):
        count, common, factors = self.printer.factors(_factorized(result))
        if not count:
            yield f"t={result.t} c={result.c}: no answer stream"
            return
        body = " * ".join(
            ["{" + ", ".join(common) + "}"]
            + ["(" + " | ".join("{" + ", ".join(a) + "}" for a in alts) + ")" for alts in factors]
        )
        yield f"t={result.t} c={result.c}: {count} answer stream{'s' * (count != 1)}: {body}"


class FactorCsvWriter(Writer):
    """Header ``t,c,factor,alternative,atom`` and the rows of :func:`factor_rows`."""

    def __init__(self, out, show_at=False):
        super().__init__(out, show_at)
        self.printer = _Printer(show_at)
        self.csv = csv.writer(out, lineterminator="\n")
        self.csv.writerow(("t", "c", "factor", "alternative", "atom"))

    def write(self, result):
        self.csv.writerows(factor_rows(_factorized(result), self.show_at, self.printer))
        self.out.flush()


class FactorChangesWriter(ChangesWriter):
    """``--changes`` with ``--factorize``: refused at the first tick with several answer streams
    (before expanding them)."""

    def lines(self, result):
        if result.factors is not None and result.factors.printed(self.show_at).count > 1:
            raise UsageError.at(
                None,
                f"--changes needs a single answer stream; at t={result.t} there are "
                f"{result.factors.count} (drop --changes)",
            )
        return super().lines(result)


#: ``--format`` names and their writers of factorized results
FACTOR_FORMATS = {
    "jsonl": FactorJsonlWriter,
    "text": FactorTextWriter,
    "csv": FactorCsvWriter,
    "changes": FactorChangesWriter,
    "none": NoneWriter,
}


def make_factor_writer(fmt: str, out, show_at: bool = False, changes: bool = False) -> Writer:
    """:func:`~ticker_py.streams.writers.make_writer` for factorized results (``--factorize``)."""
    return make_writer(fmt, out, show_at, changes, FACTOR_FORMATS)


def factors_to_dataframe(results: Iterable[Result], show_at: bool = False):
    """A pandas DataFrame ``t, c, factor, alternative, atom`` with the rows of :func:`factor_rows`."""
    import pandas as pd

    printer = _Printer(show_at)
    rows = [row for result in results for row in factor_rows(_factorized(result), show_at, printer)]
    frame = pd.DataFrame(rows, columns=["t", "c", "factor", "alternative", "atom"])
    return frame.astype({"t": "int64", "c": "int64", "factor": "Int64", "alternative": "Int64", "atom": "string"})
