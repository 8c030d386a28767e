"""Sharded evaluation: the stream split by the key of :func:`~ticker_py.analysis.sharding.shard_plan`,
every shard evaluated by its own reasoner (in Spark tasks, or one after another in-process),
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

Only the Spark functions import pyspark, inside the function: this module imports without a JVM.
"""

from __future__ import annotations

import itertools
import pickle
import sys
import time
from pathlib import Path
from typing import Iterable, Iterator, Optional

from ..analysis import Analysis
from ..analysis.sharding import ShardPlan, shard_of, shard_plan
from ..errors import Diagnostic, StreamError, TickerError, UsageError
from ..ground import format_atom
from ..streams.model import Model, Record, Result, time_points
from ..streams.readers import StreamChecker
from ..syntax.ground_atoms import GroundSyntaxError, parse_ground_atom

__all__ = ["plan_for", "split_stream", "needs_owner_filter", "evaluate_shard", "merge_shards",
           "run_sharded_local", "run_sharded", "add_spark_run_options", "run_sharded_cli",
           "STATE", "MODEL", "NONE", "ERROR", "OUTPUT_SCHEMA"]

# kinds of the rows a shard reports: (t, kind, model, at, atom)
# kinds of the rows a shard reports, one row per (shard, t) (models != 1: per model):
# (shard, t, model, kind, n, added, removed, pins_added, pins_removed, message)
STATE = 0   # models=1: atoms added/removed since the previous time point (pickled atoms / (atom, T) pins)
MODEL = 1   # models != 1: answer stream number `model`, whole, in `added` / `pins_added`
NONE = 2    # no answer stream at t
ERROR = 3   # the shard's stream was refused at t: `message`
# n: the number of stream atoms the shard owns at t (on the first row of (shard, t))

OUTPUT_SCHEMA = ("shard int, t long, model int, kind int, n long, added array<binary>, "
                 "removed array<binary>, pins_added array<binary>, pins_removed array<binary>, "
                 "message string")
INPUT_SCHEMA = "shard int, part long, t long, c long, atom string"


# ------------------------------------------------------------------ planning and splitting

def _analysis(program, clock="1s") -> Analysis:
    if isinstance(program, Analysis):
        return program
    from ..api import load_program

    return load_program(program, clock)


def plan_for(analysis: Analysis) -> ShardPlan:
    """The shard plan, or :class:`UsageError` with its reason if the program cannot be sharded."""
    plan = shard_plan(analysis)
    if not plan.shardable:
        raise UsageError(Diagnostic(f"this program cannot be evaluated in shards: {plan.reason}",
                                    notes=("run it without --shards/--spark",)))
    return plan


def _check_shards(shards: int) -> None:
    if not isinstance(shards, int) or shards < 1:
        raise UsageError(Diagnostic(f"--shards must be an integer >= 1, not {shards!r}"))


def _targets(atom: tuple, key: dict, shards: int):
    s = shard_of(atom, key, shards)
    return range(shards) if s is None else (s,)


def split_stream(records: Iterable[Record], analysis: Analysis, key: dict, shards: int,
                 until: Optional[int] = None):
    """Split a stream on the driver: ``(rows, last, error)``.

    ``rows[s]`` lists ``(t, c, atom)`` of shard s in stream order (c = the global arrival
    count, duplicates within a time point dropped); ``last`` is the last time point to
    evaluate. The records are checked as by the single run; on a refused record ``error`` is
    the StreamError and ``last`` the time point of the last accepted record: as in
    :meth:`~ticker_py.api.Reasoner.feed`, everything accepted is evaluated, then the error raised.
    """
    checker = StreamChecker(dict(analysis.signatures), set(analysis.intensional))
    rows = [[] for _ in range(shards)]
    last, c, error = -1, 0, None
    try:
        for point in time_points(checker.records(records, until=until), until):
            last = point.t
            for atom in point.atoms:
                c += 1
                for s in _targets(atom, key, shards):
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
        if not any(not lit.negated and not lit.is_comparison and lit.element.atom.predicate in key
                   for lit in rule.body):
            return True
    return False


def evaluate_shard(analysis: Analysis, key: dict, shard: int, shards: int, rows: Iterable,
                   last: int, engine: str = "auto", models: int = 1, show: str = "derived",
                   inertia: bool = False) -> Iterator[tuple]:
    """Evaluate one shard over time points 0..last; yields its report rows without the shard:
    ``(t, model, kind, n, added, removed, pins_added, pins_removed, message)`` (see the kinds).

    ``rows`` are ``(t, c, atom)`` of this shard sorted by (t, c), the atom a tuple or a
    string (parsed here); rows with t < 0 or atom None are ignored (but t counts as time).
    Atoms are reported pickled; only owned ones (see the module doc).
    """
    from ..api import Reasoner

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
                        raise StreamError(Diagnostic(f"bad atom '{atom}' at time {t}: {err.message}")) \
                            from None
                if atom not in seen:
                    seen.add(atom)
                    atoms.append(atom)
            n = len(atoms) if shard == 0 else sum(1 for a in atoms if a[0] in key)
            if n:
                counts[t] = n
            yield Record(t, tuple(atoms), f"<shard {shard}>", 0)

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
            yield (t, 0, kind, n, [dumps(a) for a in owned(atoms - prev_atoms)],
                   [dumps(a) for a in owned(prev_atoms - atoms)],
                   [dumps(p) for p in owned_pins(pins - prev_pins)],
                   [dumps(p) for p in owned_pins(prev_pins - pins)], None)
            prev_atoms, prev_pins = atoms, pins
        elif not res.models:
            yield t, 0, NONE, n, [], [], [], [], None
        else:
            for i, m in enumerate(res.models):
                yield (t, i, MODEL, n if i == 0 else 0, [dumps(a) for a in owned(m.atoms)], [],
                       [dumps(p) for p in owned_pins(m.pinned)], [], None)


# ------------------------------------------------------------------ merging

class _Merger:
    """Turns the shards' rows of one time point after the other into Results."""

    def __init__(self, shards: int, models: int):
        self.shards, self.models = shards, models
        self.c = 0
        self.mult: dict = {}    # models=1: atom or (atom, T) pin -> number of shards holding it
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
        for shard, model, kind, n, added, removed, pins_added, pins_removed, message in rows:
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
                per_shard[shard].append((frozenset(map(pickle.loads, added or ())),
                                         frozenset(map(pickle.loads, pins_added or ()))))
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

def run_sharded_local(program, stream, shards: int, engine: str = "auto", models: int = 1,
                      show: str = "derived", until: Optional[int] = None, clock="1s",
                      inertia: bool = False) -> Iterator[Result]:
    """The sharded run without Spark: split, evaluate the shards one after another, merge.

    The same functions as the Spark run; useful to check a partitioning and in tests.
    """
    from ..api import records_from

    analysis = _analysis(program, clock)
    _check_shards(shards)
    key = plan_for(analysis).key
    if models < 0:
        raise UsageError(Diagnostic(f"--models must be >= 0, not {models}"))
    return _local(analysis, key, records_from(stream), shards, engine, models, show, until, inertia)


def _local(analysis, key, records, shards, engine, models, show, until, inertia):
    rows, last, error = split_stream(records, analysis, key, shards, until)
    out = [(s, *row) for s in range(shards)
           for row in evaluate_shard(analysis, key, s, shards, rows[s], last, engine, models, show, inertia)]
    out.sort(key=lambda r: r[1])
    yield from merge_shards(out, shards, last, models)
    if error is not None:
        raise error


# ------------------------------------------------------------------ Spark run

def _labels(spark, shards: int) -> list:
    """Values whose Spark hash lands in partitions 0..shards-1, one each (``repartition(n, col)``
    uses ``pmod(hash(col), n)``), so that every shard gets its own task."""
    from pyspark.sql import functions as F

    got: dict = {}
    for row in spark.range(64 * shards).select(
            "id", F.expr(f"pmod(hash(id), {shards})").alias("p")).collect():
        got.setdefault(row.p, row.id)
    if len(got) < shards:  # pragma: no cover - would need a degenerate hash
        return list(range(shards))
    return [got[s] for s in range(shards)]


def _spark_input(spark, stream, analysis, key, shards, labels, until):
    """The stream as a Spark DataFrame ``shard, part, t, c, atom`` and the last time point.

    A Spark DataFrame (columns t, atom and maybe an order column) or a Parquet path is split
    in Spark; any other stream is read and split on the driver.
    """
    import pandas as pd
    from pyspark.sql import functions as F

    from ..api import records_from
    from ..streams.readers import _check_columns

    sdf = None
    if hasattr(stream, "toLocalIterator") and hasattr(stream, "columns"):
        sdf = stream
    elif isinstance(stream, (str, Path)) and str(stream) != "-" and (
            Path(stream).is_dir() or str(stream).lower().endswith(".parquet")):
        sdf = spark.read.parquet(str(stream))
    if sdf is None:
        rows, last, error = split_stream(records_from(stream), analysis, key, shards, until)
        frame = pd.DataFrame(
            [(s, labels[s], t, c, format_atom(a)) for s in range(shards) for t, c, a in rows[s]],
            columns=["shard", "part", "t", "c", "atom"])
        frame = frame.astype({"shard": "int32", "part": "int64", "t": "int64", "c": "int64"})
        from .gen import _conf

        with _conf(spark, {"spark.sql.execution.arrow.pyspark.enabled": "true"}):
            df = spark.createDataFrame(frame, INPUT_SCHEMA) if len(frame) else \
                spark.createDataFrame([], INPUT_SCHEMA)
        return df, last, error

    order = _check_columns(list(sdf.columns), "<Spark DataFrame>")
    sdf = sdf.select(F.col("t").cast("long").alias("t"), F.col("atom").cast("string").alias("atom"),
                     F.col(order).cast("long").alias("c") if order
                     else F.monotonically_increasing_id().alias("c"))
    if until is not None:
        sdf = sdf.filter(F.col("t") <= until)
    top = sdf.agg(F.max("t")).first()[0]
    last = until if until is not None else max(0, top if top is not None else 0)
    assign = _assigner(key, shards, labels)
    return sdf.mapInArrow(assign, INPUT_SCHEMA), last, None


def _assigner(key: dict, shards: int, labels: list):
    """The mapInArrow function that gives each input row its shard (broadcast: every shard)."""
    def assign(batches):
        import pyarrow as pa

        for batch in batches:
            out_shard, out_t, out_c, out_atom = [], [], [], []
            cols = (batch.column(c).to_pylist() for c in ("t", "c", "atom"))
            for t, c, text in zip(*cols):
                if text is None or not text.strip():
                    continue  # a heartbeat: the last time point is known anyway
                try:
                    targets = _targets(parse_ground_atom(text), key, shards)
                except GroundSyntaxError:
                    targets = (0,)  # shard 0 reports the error
                for s in targets:
                    out_shard.append(s)
                    out_t.append(t)
                    out_c.append(c)
                    out_atom.append(text)
            yield pa.RecordBatch.from_arrays(
                [pa.array(out_shard, pa.int32()), pa.array([labels[s] for s in out_shard], pa.int64()),
                 pa.array(out_t, pa.int64()), pa.array(out_c, pa.int64()), pa.array(out_atom, pa.string())],
                ["shard", "part", "t", "c", "atom"])
    return assign


def _evaluator(analysis, key, shards, last, engine, models, show, inertia, batch_rows=64):
    """The mapInArrow function of the shard tasks: rows sorted by (shard, t, c) in, reports out."""
    def evaluate(batches):
        import pyarrow as pa

        schema = _output_arrow_schema()

        def rows():
            for batch in batches:
                yield from zip(*(batch.column(c).to_pylist() for c in ("shard", "t", "c", "atom")))

        def batch_of(buf):
            return pa.RecordBatch.from_arrays(
                [pa.array(col, type=f.type) for col, f in zip(zip(*buf), schema)], schema=schema)

        buf = []
        for shard, group in itertools.groupby(rows(), key=lambda r: r[0]):
            shard_rows = ((t, c, a) for _, t, c, a in group)
            for out in evaluate_shard(analysis, key, shard, shards, shard_rows, last,
                                      engine, models, show, inertia):
                buf.append((shard, *out))
                if len(buf) >= batch_rows:
                    yield batch_of(buf)
                    buf = []
        if buf:
            yield batch_of(buf)
    return evaluate


def _output_arrow_schema():
    import pyarrow as pa

    blobs = pa.list_(pa.binary())
    return pa.schema([("shard", pa.int32()), ("t", pa.int64()), ("model", pa.int32()),
                      ("kind", pa.int32()), ("n", pa.int64()), ("added", blobs), ("removed", blobs),
                      ("pins_added", blobs), ("pins_removed", blobs), ("message", pa.string())])


def run_sharded(program, stream, shards: Optional[int] = None, engine: str = "auto",
                models: int = 1, spark=None, show: str = "derived", until: Optional[int] = None,
                clock="1s", inertia: bool = False, timings: Optional[dict] = None) -> Iterator[Result]:
    """Evaluate ``program`` over ``stream`` in ``shards`` Spark tasks; yields the merged Results.

    ``stream``: a Spark DataFrame (``t``, ``atom``, optional order column ``c``/``order``/
    ``seq``), a Parquet file or directory (read by Spark), or anything
    :func:`~ticker_py.records_from` reads (read and split on the driver). ``spark`` defaults
    to :func:`~ticker_py.spark.session.get_spark`; ``shards`` to its default parallelism.
    A program that cannot be sharded raises :class:`UsageError` with the plan's reason.
    ``timings``, if a dict, receives ``evaluate`` (seconds of the Spark job) and ``merge``.
    The Spark job runs when the first Result is asked for.
    """
    analysis = _analysis(program, clock)
    key = plan_for(analysis).key
    if models < 0:
        raise UsageError(Diagnostic(f"--models must be >= 0, not {models}"))
    if shards is not None:
        _check_shards(shards)
    from ..engines import resolve_engine

    engine = resolve_engine(engine, analysis)
    return _spark_run(analysis, key, stream, shards, engine, models, spark, show, until, inertia, timings)


def _spark_run(analysis, key, stream, shards, engine, models, spark, show, until, inertia, timings):
    if spark is None:
        from .session import get_spark

        spark = get_spark()
    shards = shards or spark.sparkContext.defaultParallelism
    start = time.perf_counter()
    labels = _labels(spark, shards)
    df, last, error = _spark_input(spark, stream, analysis, key, shards, labels, until)
    sentinels = spark.createDataFrame([(s, labels[s], -1, 0, None) for s in range(shards)], INPUT_SCHEMA)
    evaluate = _evaluator(analysis, key, shards, last, engine, models, show, inertia)
    out = (df.unionByName(sentinels).repartition(shards, "part")
           .sortWithinPartitions("shard", "t", "c").mapInArrow(evaluate, OUTPUT_SCHEMA))
    table = out.toArrow()
    evaluated = time.perf_counter()
    table = table.sort_by([("t", "ascending")])
    cols = [table.column(c).to_pylist() for c in _output_arrow_schema().names]
    yield from merge_shards(zip(*cols), shards, last, models)
    if timings is not None:
        timings.update(evaluate=evaluated - start, merge=time.perf_counter() - evaluated)
    if error is not None:
        raise error


# ------------------------------------------------------------------ command line

def add_spark_run_options(run_parser) -> None:
    """Add ``--spark``, ``--shards N`` and ``--master`` to the ``ticker run`` parser."""
    g = run_parser.add_argument_group("sharded evaluation (see docs/spark.md)")
    g.add_argument("--spark", action="store_true",
                   help="evaluate in Spark tasks, one per shard of the stream (needs pyspark)")
    g.add_argument("--shards", type=int, metavar="N",
                   help="number of shards (default with --spark: Spark's parallelism); without "
                        "--spark the shards run one after another in this process")
    g.add_argument("--master", default="local[2]", help="Spark master (default local[2])")


def run_sharded_cli(args, analysis: Analysis, writer) -> int:
    """``ticker run --spark/--shards``: evaluate, write every Result, close the writer; status 0.

    Uses ``args.stream``, ``engine``, ``models``, ``show``, ``until``, ``inertia``, ``every``
    (only ``time``), ``spark``, ``shards``, ``master``. Errors raise :class:`TickerError`.
    """
    if getattr(args, "every", "time") != "time":
        raise UsageError(Diagnostic("--every signal cannot be sharded: a tick's count spans all shards",
                                    notes=("run it without --shards/--spark",)))
    if args.shards is not None:
        _check_shards(args.shards)
    plan_for(analysis)
    common = dict(engine=args.engine, models=args.models, show=getattr(args, "show", "derived"),
                  until=args.until, inertia=getattr(args, "inertia", False))
    start = time.perf_counter()
    if args.spark:
        try:
            from .session import get_spark
        except ImportError:  # pragma: no cover
            raise UsageError(Diagnostic("--spark needs pyspark: pip install ticker_py[spark]")) from None
        spark = get_spark(args.master)
        print(f"[spark] session started in {time.perf_counter() - start:.1f}s", file=sys.stderr)
        results = run_sharded(analysis, args.stream, args.shards, spark=spark, **common)
    else:
        results = run_sharded_local(analysis, args.stream, args.shards or 1, **common)
    points, begin = 0, time.perf_counter()
    last_c = 0
    try:
        for result in results:
            points += 1
            last_c = result.c
            writer.write(result)
    finally:
        writer.close({"time_points": points, "atoms": last_c, "seconds": time.perf_counter() - begin})
    return 0
