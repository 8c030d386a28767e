"""Sharded evaluation: the stream split by the key of :func:`~ticker_py.analysis.sharding.shard_plan`,
every shard evaluated by its own reasoner (one after another in-process here, or in Spark
tasks by :mod:`ticker_py.spark.shard`),
the shards' answers merged per time point on the driver.

The pipeline (see docs/spark.md, "Sharded evaluation"):

1. **Split.** A stream atom whose predicate is keyed goes to shard ``shard_of(atom, key, S)``;
   any other atom (a broadcast predicate of the plan, or one the program does not know) goes
   to every shard. Background facts are part of the program, so every shard has them.
2. **Evaluate.** Each shard runs a :class:`~ticker_py.api.Reasoner` over *every* time point
   0..T, empty ones included (a box or time window must see time pass as in the single run).
   It reports, per time point, the number of distinct stream atoms it *owns* (keyed atoms of
   the shard; broadcast atoms count in shard 0 only), and its answer restricted to what it
   owns: a derived atom of a keyed predicate is kept only by the shard its key value hashes
   to (another shard lacks that key's data, so it may derive it wrongly, e.g. through
   ``not``); atoms of unkeyed predicates are the same in every shard and are kept by all.
3. **Merge.** With one answer stream per shard (``models=1``) the shards send changes
   (added/removed atoms) and the merged answer stream at t is the union of the shards'
   current ones; with several (``models`` 0 or > 1) they send whole models and the merged
   answer streams are the distinct unions of one answer stream per shard (the product), the
   first ``models`` of them when ``models > 0``. If some shard has no answer stream at t,
   neither has the whole stream. The count c of tick (t, c) is the sum of the owned counts,
   i.e. the global count of the single run.

For a shardable program the merged answers equal the single-process run's for ``models=0``;
with ``models=1`` they are equal when the program has one answer stream per time point, and
otherwise one of the correct answer streams (a union of one per shard), not necessarily the
single solver's first.

This module is the pure part (no Spark): split, evaluate a shard, merge, and the in-process
run; :mod:`ticker_py.spark.shard` runs the same functions in Spark tasks.
"""

from __future__ import annotations

import itertools
import pickle
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .analysis import Analysis
from .analysis.sharding import ShardPlan, shard_of, shard_plan
from .api import Reasoner, load_program, records_from
from .errors import Diagnostic, StreamError, TickerError, UsageError
from .streams.drive import MAX_GAP, check_max_gap, gap_limited
from .streams.model import Model, Record, Result, time_points
from .streams.readers import StreamChecker
from .syntax.ground_atoms import GroundSyntaxError, parse_ground_atom

__all__ = [
    "ShardOptions",
    "plan_for",
    "MAX_SHARDS",
    "check_shards",
    "check_run",
    "shard_targets",
    "split_stream",
    "needs_owner_filter",
    "evaluate_shard",
    "merge_shards",
    "run_sharded_local",
    "analysis_of",
    "STATE",
    "MODEL",
    "NONE",
    "ERROR",
]

# kinds of the rows a shard reports, one row per (shard, t) (models != 1: per model):
# (shard, t, model, kind, n, added, removed, pins_added, pins_removed, message)
STATE = 0  # models=1: atoms added/removed since the previous time point (pickled atoms / (atom, T) pins)
MODEL = 1  # models != 1: answer stream number `model`, whole, in `added` / `pins_added`
NONE = 2  # no answer stream at t
ERROR = 3  # the shard's stream was refused at t: `message`
# n: the number of stream atoms the shard owns at t (on the first row of (shard, t))


@dataclass(frozen=True)
class ShardOptions:
    """How to shard a run: ``shards`` (None with Spark: its default parallelism), in Spark
    tasks (``spark``, on ``master``) or one after another in this process."""

    shards: int | None = None
    spark: bool = False
    master: str = "local[2]"


# ------------------------------------------------------------------ planning and splitting


def analysis_of(program, clock="1s") -> Analysis:
    """``program`` analysed (text, a path or an AST), or as is if it is an Analysis."""
    if isinstance(program, Analysis):
        return program
    return load_program(program, clock=clock)


def plan_for(analysis: Analysis) -> ShardPlan:
    """The shard plan, or :class:`UsageError` with its reason if the program cannot be sharded."""
    plan = shard_plan(analysis)
    if not plan.shardable:
        raise UsageError(
            Diagnostic(
                f"this program cannot be evaluated in shards: {plan.reason}", notes=("run it without --shards/--spark",)
            )
        )
    return plan


#: the most shards: each builds its own reasoner, which takes milliseconds, and evaluates every time
#: point (100000 shards of a one-atom stream ran for minutes)
MAX_SHARDS = 10_000


def check_shards(shards: int, what: str = "shards") -> None:
    """Refuse a ``shards`` that is not an integer in 1..MAX_SHARDS; ``what`` names it (the API's
    parameter, or ``--shards``)."""
    if type(shards) is not int or shards < 1:
        raise UsageError(Diagnostic(f"{what} must be an integer >= 1, not {shards!r}"))
    if shards > MAX_SHARDS:
        raise UsageError(
            Diagnostic(
                f"{what} must be at most {MAX_SHARDS}, not {shards}",
                notes=("each shard evaluates every time point with its own reasoner",),
            )
        )


def check_run(models: int, until: int | None) -> None:
    """Refuse a ``models`` that is not an integer >= 0 and an ``until`` that is not None or one."""
    if type(models) is not int or models < 0:
        raise UsageError(Diagnostic(f"models must be an integer >= 0, not {models!r}"))
    if until is not None and (type(until) is not int or until < 0):
        raise UsageError(Diagnostic(f"until must be an integer >= 0, not {until!r}"))


def shard_targets(atom: tuple, key: dict, shards: int):
    """The shards an atom goes to: its key's shard, or every shard (broadcast)."""
    s = shard_of(atom, key, shards)
    return range(shards) if s is None else (s,)


def split_stream(
    records: Iterable[Record],
    analysis: Analysis,
    key: dict,
    shards: int,
    until: int | None = None,
    max_gap: int | None = MAX_GAP,
):
    """Split a stream on the driver: ``(rows, last, error)``.

    ``rows[s]`` lists ``(t, c, atom)`` of shard s in stream order (c = the global arrival
    count, duplicates within a time point dropped); ``last`` is the last time point to
    evaluate. The records are checked as by the single run (also a record more than ``max_gap``
    time points after the one before, or an ``until`` that far after the last); on a refused
    record ``error`` is the StreamError and ``last`` the time point of the last accepted record: as in
    :meth:`~ticker_py.api.Reasoner.feed`, everything accepted is evaluated, then the error raised.
    """
    checker = StreamChecker(dict(analysis.signatures), set(analysis.intensional))
    rows = [[] for _ in range(shards)]
    last, c, error = -1, 0, None
    try:
        for point in time_points(checker.records(gap_limited(records, max_gap, until), until=until), until):
            last = point.t
            for atom in point.atoms:
                c += 1
                for s in shard_targets(atom, key, shards):
                    rows[s].append((point.t, c, atom))
    except TickerError as err:
        error = err
    return rows, last, error


# ------------------------------------------------------------------ one shard


def needs_owner_filter(analysis: Analysis, key: dict) -> bool:
    """Can a shard derive a keyed atom whose key value belongs to another shard?

    Not if every rule with a keyed head has a positive keyed body atom: by induction, a keyed
    atom then rests on stream atoms of its own key value, which only its owner has.
    """
    for rule in analysis.program.proper_rules:
        if rule.head is None or rule.head.atom.predicate not in key:
            continue
        if not any(
            not lit.negated and not lit.is_comparison and lit.element.atom.predicate in key for lit in rule.body
        ):
            return True
    return False


def evaluate_shard(
    analysis: Analysis,
    key: dict,
    shard: int,
    shards: int,
    rows: Iterable,
    last: int,
    engine: str = "auto",
    models: int = 1,
    show: str = "derived",
    inertia: bool = False,
) -> Iterator[tuple]:
    """Evaluate one shard over time points 0..last; yields its report rows without the shard:
    ``(t, model, kind, n, added, removed, pins_added, pins_removed, message)`` (see the kinds).

    ``rows`` are ``(t, c, atom)`` of this shard sorted by (t, c), the atom a tuple or a
    string (parsed here); rows with t < 0 or atom None are ignored (but t counts as time).
    Atoms are reported pickled; only owned ones (see the module doc).
    """
    reasoner = Reasoner(analysis, engine=engine, models=models, show=show, inertia=inertia)
    owner_filter = needs_owner_filter(analysis, key)
    counts: dict = {}
    dumps = pickle.dumps

    def owned(atoms):
        if not owner_filter:
            return atoms
        return [a for a in atoms if shard_of(a, key, shards) in (None, shard)]

    def owned_pins(pins):
        if not owner_filter:
            return pins
        return [p for p in pins if shard_of(p[0], key, shards) in (None, shard)]

    def records():
        for t, group in itertools.groupby(rows, key=lambda r: r[0]):
            if t < 0:
                continue
            atoms, seen = [], set()
            for _, _, atom in group:
                if atom is None:
                    continue
                if isinstance(atom, str):
                    try:
                        atom = parse_ground_atom(atom)
                    except GroundSyntaxError as err:
                        raise StreamError(Diagnostic(f"bad atom '{atom}' at time {t}: {err.message}")) from None
                if atom not in seen:
                    seen.add(atom)
                    atoms.append(atom)
            n = len(atoms) if shard == 0 else sum(1 for a in atoms if a[0] in key)
            if n:
                counts[t] = n
            yield Record(t, tuple(atoms), f"<shard {shard}>", 0)

    if last < 0:  # no time point was accepted: nothing to evaluate
        return
    prev_atoms, prev_pins = frozenset(), frozenset()
    results = reasoner.feed(records(), until=last)
    while True:
        try:
            res = next(results)
        except StopIteration:
            return
        except TickerError as err:
            yield reasoner.time, 0, ERROR, 0, [], [], [], [], err.diagnostics[0].message
            return
        t = res.t
        n = counts.pop(t, 0)
        if models == 1:
            if res.models:
                atoms, pins = res.models[0].atoms, res.models[0].pinned
                kind = STATE
            else:
                atoms, pins, kind = frozenset(), frozenset(), NONE
            yield (
                t,
                0,
                kind,
                n,
                [dumps(a) for a in owned(atoms - prev_atoms)],
                [dumps(a) for a in owned(prev_atoms - atoms)],
                [dumps(p) for p in owned_pins(pins - prev_pins)],
                [dumps(p) for p in owned_pins(prev_pins - pins)],
                None,
            )
            prev_atoms, prev_pins = atoms, pins
        elif not res.models:
            yield t, 0, NONE, n, [], [], [], [], None
        else:
            for i, m in enumerate(res.models):
                yield (
                    t,
                    i,
                    MODEL,
                    n if i == 0 else 0,
                    [dumps(a) for a in owned(m.atoms)],
                    [],
                    [dumps(p) for p in owned_pins(m.pinned)],
                    [],
                    None,
                )


# ------------------------------------------------------------------ merging


class _Merger:
    """Turns the shards' rows of one time point after the other into Results."""

    def __init__(self, shards: int, models: int):
        self.shards, self.models = shards, models
        self.c = 0
        self.mult: dict = {}  # models=1: atom or (atom, T) pin -> number of shards holding it
        self.live: set = set()  # models=1: atoms at t held by some shard
        self.pins: set = set()  # models=1: pins held by some shard

    def _add(self, items, live):
        mult = self.mult
        for b in items:
            x = pickle.loads(b)
            n = mult.get(x, 0)
            mult[x] = n + 1
            if n == 0:
                live.add(x)

    def _remove(self, items, live):
        mult = self.mult
        for b in items:
            x = pickle.loads(b)
            n = mult[x] - 1
            if n:
                mult[x] = n
            else:
                del mult[x]
                live.discard(x)

    def result(self, t: int, rows) -> Result:
        """``rows``: ``(shard, model, kind, n, added, removed, pins_added, pins_removed, message)``."""
        none = False
        per_shard = [[] for _ in range(self.shards)]
        for shard, _model, kind, n, added, removed, pins_added, pins_removed, message in rows:
            self.c += n or 0
            if kind == ERROR:
                raise StreamError(Diagnostic(f"{message} (in shard {shard})"))
            if kind == NONE:
                none = True
            if kind == STATE or (kind == NONE and self.models == 1):
                self._add(added or (), self.live)
                self._remove(removed or (), self.live)
                self._add(pins_added or (), self.pins)
                self._remove(pins_removed or (), self.pins)
            elif kind == MODEL:
                per_shard[shard].append(
                    (frozenset(map(pickle.loads, added or ())), frozenset(map(pickle.loads, pins_added or ())))
                )
        if none:
            return Result(t, self.c, ())
        if self.models == 1:
            return Result(t, self.c, (Model(frozenset(self.live), frozenset(self.pins)),))
        merged, seen = [], set()
        for combo in itertools.product(*per_shard):
            atoms = frozenset().union(*(m[0] for m in combo))
            pins = frozenset().union(*(m[1] for m in combo))
            if (atoms, pins) not in seen:
                seen.add((atoms, pins))
                merged.append(Model(atoms, pins))
                if self.models and len(merged) == self.models:
                    break
        return Result(t, self.c, tuple(merged))


def merge_shards(rows: Iterable[tuple], shards: int, last: int, models: int = 1) -> Iterator[Result]:
    """Merge report rows ``(shard, t, model, kind, ...)`` sorted by t into Results for 0..last.

    Raises the StreamError of an ERROR row after yielding every time point before it.
    """
    merger = _Merger(shards, models)
    groups = itertools.groupby(rows, key=lambda r: r[1])
    pending = next(groups, None)
    for t in range(last + 1):
        group = ()
        if pending is not None and pending[0] == t:
            group = [(r[0], *r[2:]) for r in pending[1]]
            pending = next(groups, None)
        yield merger.result(t, group)
    if pending is not None:  # rows past `last`: only an error can be there
        merger.result(pending[0], [(r[0], *r[2:]) for r in pending[1]])


# ------------------------------------------------------------------ in-process run


def run_sharded_local(
    program,
    stream,
    shards: int,
    engine: str = "auto",
    models: int = 1,
    show: str = "derived",
    until: int | None = None,
    clock="1s",
    inertia: bool = False,
    max_gap: int | None = MAX_GAP,
) -> Iterator[Result]:
    """The sharded run without Spark: split, evaluate the shards one after another, merge.

    The same functions as the Spark run; useful to check a partitioning and in tests.
    """
    analysis = analysis_of(program, clock)
    check_shards(shards)
    key = plan_for(analysis).key
    check_run(models, until)
    max_gap = check_max_gap(max_gap)
    return _local(analysis, key, records_from(stream), shards, engine, models, show, until, inertia, max_gap)


def _local(analysis, key, records, shards, engine, models, show, until, inertia, max_gap=MAX_GAP):
    rows, last, error = split_stream(records, analysis, key, shards, until, max_gap)
    out = [
        (s, *row)
        for s in range(shards)
        for row in evaluate_shard(analysis, key, s, shards, rows[s], last, engine, models, show, inertia)
    ]
    out.sort(key=lambda r: r[1])
    yield from merge_shards(out, shards, last, models)
    if error is not None:
        raise error
