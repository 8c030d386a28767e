"""The smallest streams on which two semantics (or two engines) part, and the atlas of the profiles
(docs/semantics.md). The order of the search depends only on the seed.

>>> w = distinguish("recent :- p in [2].", semantics="default,default+window_bounds=half-open")
>>> print(stream_text(w.stream), end="")
0: p
2:
>>> w.t, w.dimension
(2, 'window_bounds')
"""

from __future__ import annotations

import functools
import math
import random
import time
import warnings
from dataclasses import dataclass
from itertools import combinations

from . import ast
from .analysis import Analysis
from .analysis.terms import rule_terms, subterms
from .api import Reasoner, load_program, records_from
from .errors import StreamError, TickerError, TickerWarning, UsageError
from .plot.timeline import answers_key
from .semantics import PROFILES, Semantics, parse_semantics_list, resolve
from .semantics_compare import difference, engine_names, knob_values, models_text
from .values import format_atom

__all__ = [
    "Witness",
    "distinguish",
    "search",
    "Search",
    "check_options",
    "stream_text",
    "format_witness",
    "ATLAS",
    "atlas",
    "atlas_markdown",
    "atlas_section",
    "ATLAS_MARK",
]

_MAX_SEED = 2**64 - 1
#: draws in a row that give only streams tried before: the streams that can be drawn are exhausted
_EXHAUSTED = 2000
#: streams tried per pair and program in the atlas (a count, not a time: the table is reproducible)
ATLAS_STREAMS = 150


@dataclass(frozen=True)
class Witness:
    """A stream (``((t, (atom, ...)), ...)``) on which two runs differ: first at ``t``, with ``answers``
    (None: not evaluated), explained by ``dimension`` and ``detail``, after ``tried`` streams."""

    stream: tuple
    t: int
    answers: dict
    dimension: str
    detail: str
    tried: int

    @property
    def atoms(self) -> int:
        return sum(len(atoms) for _, atoms in self.stream)


def stream_text(stream) -> str:
    """Records in the text stream format (``0: p(1), q``), readable by ``ticker run --stream``."""
    return "".join(f"{t}:" + (" " + ", ".join(atoms) if atoms else "") + "\n" for t, atoms in stream)


def _size(stream) -> tuple:
    return (sum(len(a) for _, a in stream), len(stream), tuple(t for t, _ in stream))


@dataclass(frozen=True)
class _Run:
    label: str
    semantics: Semantics
    engine: str


def _runs(semantics, engines) -> tuple:
    """The two runs of ``--semantics A,B`` or ``--engines E1,E2`` (the other one naming one for both)."""
    sems = parse_semantics_list(semantics) if isinstance(semantics, str) else list(semantics or ["default"])
    engines = (engine_names(engines) if isinstance(engines, str) else list(engines or ())) or ["auto"]
    sems = [resolve(s) for s in sems]
    if sorted((len(sems), len(engines))) != [1, 2]:
        given = f"{len(sems)} semantics and {len(engines)} engine{'s' * (len(engines) != 1)} given"
        note = "give two semantics (--semantics A,B) or two engines (--engines E1,E2), and one of the other"
        raise UsageError.at(None, f"distinguish compares two runs: {given}", note)
    if len(sems) == 2:
        return tuple(_Run(str(s), s, engines[0]) for s in sems)
    return tuple(_Run(e, sems[0], e) for e in engines)


class _Evaluator:
    """Runs a program over small streams, each (run, stream) once."""

    def __init__(self, analysis: Analysis):
        self.analysis = analysis
        self.answers = functools.cache(self._answers)

    def reasoner(self, run: _Run) -> Reasoner:
        return Reasoner(self.analysis, engine=run.engine, models=0, semantics=run.semantics)

    def _answers(self, run: _Run, stream: tuple) -> dict | None:
        """``{t: answer streams}`` (a time point's last evaluation), None if the run stops with an error."""
        try:
            reasoner = self.reasoner(run)
            with warnings.catch_warnings():  # a predicate no drawn stream gives is no news here
                warnings.simplefilter("ignore", TickerWarning)
                return {r.t: r.models for r in reasoner.feed([(t, list(atoms)) for t, atoms in stream], max_gap=None)}
        except StreamError:  # the run cannot go on on this stream (persistence: several answer streams)
            return None

    def differs(self, a: _Run, b: _Run, stream: tuple) -> int | None:
        """The first time point both runs evaluate where their answer streams differ, or None (one that
        only one run evaluates, before the first record under ``origin=first``, would be every stream's)."""
        x, y = self.answers(a, stream), self.answers(b, stream)
        if x is None or y is None:
            return None
        return next((t for t in sorted(set(x) & set(y)) if answers_key(x[t]) != answers_key(y[t])), None)


class _Vocabulary:
    """What random streams are drawn from: the extensional atoms and window-guided gaps and counts."""

    def __init__(self, analysis: Analysis, max_tp: int):
        found: list = []  # the program's constants in order: numbers (and their neighbours), names, strings
        for term in subterms([t for rule in analysis.program.rules for t in rule_terms(rule)]):
            if isinstance(term, ast.Number):
                found += [term.value, term.value + 1, term.value - 1]
            elif isinstance(term, (ast.Constant, ast.String)):
                found.append(str(term))
        fresh = [c for c in ("a", "b", "c", "d") if c not in found][:2]
        pool = list(dict.fromkeys(str(v) for v in found if not (isinstance(v, int) and v < 0)))
        self.pool = (pool[:10] + fresh) or ["a"]
        sigs = analysis.signatures
        self.predicates = sorted((analysis.renamed.get(p, p), sigs[p]) for p in analysis.extensional if p in sigs)
        times = {size for w, size in analysis.window_sizes.items() if not w.is_tuple}
        counts = {size for w, size in analysis.window_sizes.items() if w.is_tuple}
        self.gaps = sorted({1, 2} | {g for n in times for g in (n - 1, n, n + 1) if g >= 1})
        self.counts = sorted({1, 2} | {c for n in counts for c in (n, n + 1)})
        self.max_tp = max_tp

    def atom(self, rng: random.Random) -> str:
        name, arity = rng.choice(self.predicates)
        return name if not arity else f"{name}({','.join(rng.choice(self.pool) for _ in range(arity))})"

    def draw(self, rng: random.Random, size: int) -> tuple:
        """A stream of at most ``size`` records with atoms, within ``max_tp`` time points."""
        records, t = [], rng.choice([0, 0, 0, 1] + self.gaps[:2])
        for _ in range(rng.randint(1, size)):
            if t >= self.max_tp:
                break
            atoms: list = []
            for _ in range(rng.choice(self.counts)):
                # an atom of this time point again, sometimes (bags count it twice, sets once)
                atoms.append(rng.choice(atoms) if atoms and rng.random() < 0.2 else self.atom(rng))
            records.append((t, tuple(atoms)))
            t += rng.choice(self.gaps)
        if rng.random() < 0.75 and t < self.max_tp:  # a time point after the atoms: windows let go of them
            records.append((t, ()))
        return tuple(records)


def _smaller(stream: tuple):
    """Every stream one step smaller: an atom or a time point less, a time point (or all from it) one earlier."""
    for i, (t, atoms) in enumerate(stream):
        for j in range(len(atoms)):
            yield stream[:i] + ((t, atoms[:j] + atoms[j + 1 :]),) + stream[i + 1 :]
    for i in range(len(stream) if len(stream) > 1 else 0):  # a stream keeps one record
        yield stream[:i] + stream[i + 1 :]
    for i, (t, atoms) in enumerate(stream):
        if t > (stream[i - 1][0] + 1 if i else 0):
            yield stream[:i] + ((t - 1, atoms),) + stream[i + 1 :]
            yield stream[:i] + tuple((u - 1, a) for u, a in stream[i:])


def _shrunk(evaluator: _Evaluator, a: _Run, b: _Run, stream: tuple) -> tuple:
    """A locally smallest stream on which ``a`` and ``b`` still differ, from ``stream``."""
    t = evaluator.differs(a, b, stream)
    if t is not None and stream[-1][0] > t:  # later time points cannot matter at t
        cut = tuple(r for r in stream if r[0] <= t)
        cut = cut if cut and cut[-1][0] == t else cut + ((t, ()),)
        stream = cut if evaluator.differs(a, b, cut) is not None else stream
    while True:
        fits = (s for s in _smaller(stream) if _size(s) < _size(stream) and evaluator.differs(a, b, s) is not None)
        smaller = next(fits, None)
        if smaller is None:
            return stream
        stream = smaller


def _read_stream(stream) -> tuple:
    """A given stream (a path or ``(t, atoms)`` pairs) as records."""
    out: dict = {}
    for rec in records_from(stream):
        out.setdefault(rec.t, []).extend(a if isinstance(a, str) else format_atom(a) for a in rec.atoms)
    return tuple((t, tuple(atoms)) for t, atoms in sorted(out.items()))


@dataclass(frozen=True)
class Search:
    """What :func:`search` did: the ``witness`` (or None), the different ``streams`` tried, the runs' labels."""

    witness: Witness | None
    streams: int
    runs: tuple


def search(
    analysis: Analysis,
    semantics=None,
    engines=None,
    stream=None,
    budget: float | None = 10.0,
    seed: int = 0,
    max_tp: int | None = None,
    max_streams: int | None = None,
    _evaluator: _Evaluator | None = None,
) -> Search:
    """:func:`distinguish` of a loaded program, saying how many streams it tried."""
    check_options(budget, seed, max_tp, max_streams)
    a, b = _runs(semantics, engines)
    evaluator = _evaluator or _Evaluator(analysis)
    engine_a, engine_b = evaluator.reasoner(a).engine_name, evaluator.reasoner(b).engine_name
    tried, found, witness = 0, None, None
    if stream is not None:
        tried, start = 1, _read_stream(stream)
        found = start if evaluator.differs(a, b, start) is not None else None
    else:
        windows = [n for w, n in analysis.window_sizes.items() if not w.is_tuple]
        vocabulary = _Vocabulary(analysis, max_tp or min(40, max(8, 2 * max(windows, default=2) + 4)))
        rng = random.Random(seed)
        deadline = None if budget is None else time.monotonic() + budget
        seen, stale, draws = set(), 0, 0
        # no stream predicate: no stream atom changes anything, nothing to draw
        while vocabulary.predicates and found is None and stale < _EXHAUSTED:
            if max_streams is not None and tried >= max_streams or deadline is not None and time.monotonic() > deadline:
                break
            candidate = vocabulary.draw(rng, 1 + min(draws // 30, 5))  # small streams first
            draws += 1
            if candidate in seen:  # drawn before: not tried again, not counted
                stale += 1
                continue
            seen.add(candidate)
            tried, stale = tried + 1, 0
            if evaluator.differs(a, b, candidate) is not None:
                found = candidate
    if found is not None:
        found = _shrunk(evaluator, a, b, found)
        t = evaluator.differs(a, b, found)
        answers = {run.label: evaluator.answers(run, found).get(t) for run in (a, b)}
        dimension = difference((a.semantics, engine_a), (b.semantics, engine_b))
        detail = knob_values(b.semantics, a.semantics) or f"engines {engine_a} and {engine_b}"
        witness = Witness(found, t, answers, dimension, detail, tried)
    return Search(witness, tried, (a.label, b.label))


def check_options(budget, seed, max_tp, max_streams, name=lambda keyword: keyword) -> None:
    """Refuse a budget that is no number of seconds > 0 (None: no limit), a seed outside 0 .. 2^64-1, a
    ``max_tp`` or ``max_streams`` below 1; ``name``: how an error names the keyword."""
    if budget is not None and not (isinstance(budget, (int, float)) and 0 < budget < math.inf):
        raise UsageError.at(None, f"{name('budget')} must be a number of seconds > 0, not {budget}")
    if not (isinstance(seed, int) and 0 <= seed <= _MAX_SEED):
        raise UsageError.at(None, f"{name('seed')} must be an integer from 0 to {_MAX_SEED}, not {seed}")
    for keyword, value in (("max_tp", max_tp), ("max_streams", max_streams)):
        if value is not None and not (isinstance(value, int) and value >= 1):
            raise UsageError.at(None, f"{name(keyword)} must be an integer >= 1, not {value}")


def distinguish(
    program,
    semantics=None,
    engines=None,
    stream=None,
    budget: float | None = 10.0,
    seed: int = 0,
    max_tp: int | None = None,
    max_streams: int | None = None,
    clock: str | int = "1s",
) -> Witness | None:
    """A smallest stream on which two runs of ``program`` differ, or None if none is found.

    Parameters
    ----------
    program : str, path or Analysis
        The program, as for :func:`ticker_py.run`.
    semantics : str or sequence, optional
        Two semantics to part, as ``ticker compare --semantics`` takes them
        (``"default,default+window_bounds=half-open"``), run on one engine (``engines``, default auto).
    engines : str or sequence, optional
        Two engines to part (``"clingo,native"``), under one semantics.
    stream : path or iterable of (t, atoms), optional
        A stream on which the runs differ: it is only shrunk, not searched for.
    budget : float or None
        Seconds of search (None: no limit).
    seed : int
        The order of the search: the same seed finds the same witness.
    max_tp : int, optional
        Time points of a drawn stream at most.
    max_streams : int, optional
        Streams tried at most.
    clock : str or int
        The duration of one time point, as for :func:`ticker_py.load_program`.

    Returns
    -------
    Witness or None
        The locally smallest stream (fewest atoms, then time points, then smallest times), the first
        time point where the runs differ, both runs' answer streams there and the knobs that explain
        it (:func:`format_witness`); None if no stream is found within the budget.

    See Also
    --------
    ticker_py.compare_semantics, ticker_py.compare_engines
    """
    analysis = program if isinstance(program, Analysis) else load_program(program, clock=clock)
    return search(analysis, semantics, engines, stream, budget, seed, max_tp, max_streams).witness


def format_witness(w: Witness) -> str:
    """The stream, the first time point where the runs differ, their answer streams there, and why."""
    atoms, points = w.atoms, len(w.stream)
    out = [f"a stream of {atoms} atom{'s' * (atoms != 1)} at {points} time point{'s' * (points != 1)}:"]
    out += ["  " + line for line in stream_text(w.stream).splitlines()]
    out.append(f"t={w.t}: answer streams differ")
    width = max(map(len, w.answers))
    out += [f"  {label:<{width}}  {models_text(models)}" for label, models in w.answers.items()]
    out.append(f"dimension: {w.dimension} ({w.detail})")
    return "\n".join(out)


#: the atlas' programs: one per window kind and modality, and the knobs' own cases
ATLAS = {
    "now": "q :- p.",
    "time ◇": "q :- p in [2].",
    "time □": "q :- p always [2].",
    "time @": "q(T) :- p at T in [2].",
    "tuple ◇": "q(X) :- p(X) in [2 #].",
    "tuple □": "q :- p always [2 #].",
    "tuple @": "q(T) :- p at T in [2 #].",
    "@ without window": "q(T) :- p at T.",
    "tuple ties": "q(X) :- p(X) in [1 #].",
    "tuple scope": "q(X) :- p(X) in [1 #].  r :- s.",
    "@-head, past": "q at U :- p at T in [1], U = T - 1.",
    "@-head, future": "q at U :- p at T in [1], U = T + 1.",
    "negation": "q :- p in [1], not r in [1].",
}

ATLAS_MARK = ("<!-- atlas -->", "<!-- /atlas -->")


def atlas(programs: dict | None = None, profiles=None, streams: int = ATLAS_STREAMS, seed: int = 0) -> list:
    """``[(program, profile a, profile b, cell)]`` for every pair of ``profiles`` over ``programs``:
    ``cell`` a :class:`Witness`, None (none among ``streams``), ``"same knobs"`` or ``"n/a: why"``."""
    programs = ATLAS if programs is None else programs
    profiles = list(PROFILES) if profiles is None else list(profiles)
    out = []
    for name, source in programs.items():
        analysis = load_program(source)
        evaluator = _Evaluator(analysis)
        sems, refused = {p: parse_semantics_list(p)[0] for p in profiles}, {}
        for p in profiles:
            try:
                evaluator.reasoner(_Run(p, sems[p], "auto"))
            except TickerError as err:
                refused[p] = err.diagnostics[0].message
        for a, b in combinations(profiles, 2):
            if a in refused or b in refused:
                out.append((name, a, b, f"n/a: {refused.get(a) or refused[b]}"))
            elif not sems[a].differs(sems[b]):
                out.append((name, a, b, "same knobs"))
            else:
                found = search(analysis, f"{a},{b}", budget=None, seed=seed, max_streams=streams, _evaluator=evaluator)
                out.append((name, a, b, found.witness))
    return out


def _cell(cell) -> str:
    if isinstance(cell, Witness):
        lines = "; ".join(f"{t}: {', '.join(atoms)}" if atoms else f"{t}:" for t, atoms in cell.stream)
        return f"`{lines}` (differ at t={cell.t})"
    return "agree" if cell is None else cell


def atlas_markdown(rows: list, streams: int = ATLAS_STREAMS, seed: int = 0) -> str:
    """The atlas as a markdown table: per program, the pairs of profiles grouped by their cell."""
    out = ["| program | pairs of profiles | smallest distinguishing stream |", "|---|---|---|"]
    for name in dict.fromkeys(r[0] for r in rows):
        groups: dict = {}
        for _, a, b, cell in (r for r in rows if r[0] == name):
            groups.setdefault(_cell(cell), []).append(f"{a}–{b}")
        order = sorted(groups, key=lambda c: (c.startswith("n/a"), c == "same knobs", c == "agree"))
        source = ATLAS.get(name)
        first = f"{name}" + (f": `{source}`" if source else "")
        for i, cell in enumerate(order):
            out.append(f"| {first if i == 0 else ''} | {', '.join(groups[cell])} | {cell} |")
    out.append(
        f"\n`agree`: no stream among the {streams} drawn for the pair (seed {seed}) tells them apart; "
        "`same knobs`: the profiles set the same knobs (laser only checks the fragment); `n/a`: a profile "
        "refuses the program. Streams are written as records `t: atoms; ...`; `t=`: the first time point "
        "both evaluate where the answer streams differ."
    )
    return "\n".join(out) + "\n"


def atlas_section(page: str | None, table: str) -> str:
    """``page`` (None: a new file) with the atlas between :data:`ATLAS_MARK`; a page without them is refused."""
    start, end = ATLAS_MARK
    if page is None:
        return f"{start}\n{table.strip()}\n{end}\n"
    head, found, rest = page.partition(start)
    if not found or end not in rest:
        note = "write the atlas to a new file, or put the two marks where it goes"
        raise UsageError.at(None, f"the file has no {start} ... {end} section to replace", note)
    return f"{head}{start}\n{table.strip()}\n{end}{rest.partition(end)[2]}"
