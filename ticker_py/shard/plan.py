"""The plan of a sharded run: key, time or both (:func:`plan_for`), the grid of cells
(:func:`make_grid`, time ranges cut by atom count) and the Parquet stream the cells read their
slices of (:func:`prepare`: a Parquet stream is scanned, any other written to Parquet once)."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from ..analysis import Analysis
from ..analysis.sharding import TimePlan, plan_for, time_plan
from ..engines import check_engine
from ..errors import TickerError, UsageError
from ..stages.input import Input
from ..streams.model import Record, time_points

#: without time sharding the output is still cut into as many ranges as shards, or ranges of about
#: this many atoms if that makes more (the driver holds one range of answers at a time)
OUTPUT_RANGE_ATOMS = 1_000_000


def check_sharded(analysis: Analysis, spec) -> None:
    """Refuse, before anything runs, a program that ``spec.engine`` cannot run or that cannot be
    sharded as ``spec.shard_by`` says (:class:`~ticker_py.errors.EngineUnsupported`, :class:`UsageError`)."""
    check_engine(spec.engine, analysis)
    plan_for(analysis, spec.shard_by, spec.inertia)


@dataclass(frozen=True)
class Grid:
    """The cells of a sharded run.

    ``key`` (None: not cut by key) and ``key_shards``; ``ranges``: the time ranges (T0, T1)
    covering 0..last, in order, each with ``bases[r]`` = c(T0), the number of atoms before T0;
    ``spans``: the evaluation spans (start, first range, last range) (one per range when cut
    by time, else one over all ranges). Cell ``k * len(spans) + s`` is key shard k, span s.
    """

    key: dict | None
    key_shards: int
    ranges: tuple
    bases: tuple
    spans: tuple

    @property
    def cells(self) -> int:
        return self.key_shards * len(self.spans)

    def cell(self, k: int, s: int) -> int:
        return k * len(self.spans) + s

    def describe(self) -> str:
        how = []
        if self.key is not None:
            how.append(f"{self.key_shards} key shards")
        if len(self.spans) > 1 or self.key is None:
            how.append(f"{len(self.spans)} time ranges")
        return " x ".join(how)


def cut_ranges(counts: dict, last: int, parts: int) -> list:
    """Cut 0..last into at most ``parts`` ranges (T0, T1) of about equal work: atoms (``counts``:
    t -> atoms at t) plus one per time point, so that a burst of atoms is spread over ranges."""
    if last < 0:
        return []
    parts = max(1, min(parts, last + 1))
    left = last + 1 + sum(counts.values())  # work not yet in a closed range
    ranges, start, acc = [], 0, 0

    def close(end):
        nonlocal start, acc, left, parts
        ranges.append((start, end))
        start, left, parts, acc = end, left - acc, parts - 1, 0

    for t in range(last + 1):
        w = 1 + counts.get(t, 0)
        target = left / parts
        if parts > 1 and acc and acc + w - target > target - acc:  # t alone fits the next range better
            close(t)
            target = left / parts
        acc += w
        if parts > 1 and acc >= target and t < last:
            close(t + 1)
    ranges.append((start, last + 1))
    return ranges


def make_grid(
    analysis: Analysis, shards: int, counts: dict, last: int, shard_by: str = "auto", inertia: bool = False
) -> Grid:
    """The grid for ``shards`` cells over a stream with ``counts`` (t -> distinct atoms at t) on 0..last.

    ``both``: K key shards x R time ranges with K * R = shards, K the largest divisor with K <= R.
    """
    keys, times = plan_for(analysis, shard_by, inertia)
    total = sum(counts.values())
    if keys is not None and times is not None:
        k = max(d for d in range(1, shards + 1) if shards % d == 0 and d * d <= shards)
        key_shards, parts = k, shards // k
    elif keys is not None:
        # the output is still cut: one range per shard at least (the merge runs in parallel too)
        key_shards, parts = shards, max(shards, -(-total // OUTPUT_RANGE_ATOMS))
    else:
        key_shards, parts = 1, shards
    ranges = cut_ranges(counts, last, parts)
    ends, acc = [], 0  # ends[t] = c at the end of t
    for t in range(last + 1):
        acc += counts.get(t, 0)
        ends.append(acc)
    bases = tuple(ends[t0 - 1] if t0 else 0 for t0, _ in ranges)
    if times is None:
        spans = ((0, 0, len(ranges) - 1),) if ranges else ()
    else:
        spans = tuple((_start(t0, base, times, ends), r, r) for r, ((t0, _), base) in enumerate(zip(ranges, bases)))
    return Grid(keys.key if keys is not None else None, key_shards, tuple(ranges), bases, spans)


def _start(t0: int, base: int, times: TimePlan, ends: list) -> int:
    """Where a range starting at t0 must read from: t0 - lookback, or the time of global atom
    base - tuple lookback + 1 if earlier (then the cell's own count at t0 is at least the tuple
    lookback, so its tuple windows hold the same atoms as the single run's)."""
    start = max(0, t0 - times.lookback)
    first = base - times.tuple_lookback + 1  # the oldest atom a tuple window at t0 can hold
    if times.tuple_lookback and first >= 1:
        start = min(start, bisect.bisect_left(ends, first))
    elif times.tuple_lookback:
        start = 0
    return start


@dataclass(frozen=True)
class Source:
    """The Parquet stream of a sharded run: its ``files`` in time order as ``(path, first t, last t)``,
    its order column (None: rows in arrival order), its row ``counts`` per time point (distinct
    atoms when the plan counts atoms: tuple windows), the ``last`` time point to evaluate and the
    ``error`` to raise once everything before it is evaluated (or None); ``checked``: the driver
    read and checked its atoms already (its warnings said)."""

    files: tuple
    order: str | None
    counts: dict
    last: int
    error: TickerError | None = None
    checked: bool = False


def parquet_path(stream, spec):
    """The path of the Parquet file or directory ``stream`` names (the cells read it themselves),
    else None (the stream is read and written as Parquet once)."""
    from pathlib import Path

    if isinstance(stream, (str, Path)) and str(stream) != "-" and spec.stream_format == "auto":
        path = Path(stream)
        if (path.is_dir() or path.suffix.lower() == ".parquet") and path.exists():
            return path
    return None


def prepare(stream, analysis: Analysis, spec, scratch) -> Source:
    """The stream as a :class:`Source`: a Parquet file or directory (atom layout) is scanned
    (:func:`scan_parquet`), anything else is read and checked by the input stage and written to
    ``scratch`` (a directory) as Parquet once."""
    from pathlib import Path

    path = parquet_path(stream, spec)
    source = scan_parquet(path, analysis, spec) if path is not None else None
    return source if source is not None else _written(stream, analysis, spec, Path(scratch))


def _files_of(path) -> list:
    if path.is_file():
        return [path]
    return sorted(
        p for p in path.rglob("*") if p.is_file() and not any(x[0] in "._" for x in p.relative_to(path).parts)
    )


def _statistics(part, max_gap) -> list | None:
    """``[(first t, last t, rows)]`` of the row groups of the ParquetFile ``part`` that hold rows,
    from their statistics alone; None where these cannot stand for the values: a statistic missing,
    a null time, row groups out of time order, or one spanning more than ``max_gap`` time points
    (a gap inside it is not seen)."""
    meta = part.metadata
    where = part.schema_arrow.get_field_index("t")
    groups = []
    for i in range(meta.num_row_groups):
        group = meta.row_group(i)
        if not group.num_rows:
            continue
        stats = group.column(where).statistics
        if stats is None or not stats.has_min_max or stats.null_count != 0:
            return None
        first, last = int(stats.min), int(stats.max)
        if (groups and first < groups[-1][1]) or (max_gap is not None and last - first > max_gap):
            return None
        groups.append((first, last, group.num_rows))
    return groups


def scan_parquet(path, analysis: Analysis, spec) -> Source | None:
    """Scan a Parquet stream file by file (on the driver); None for a layout the cells do not read
    (predicate and arguments, t as a partition key).

    Where no tuple window counts atoms, a file whose row groups' ``t`` statistics are in time order
    (each spanning at most ``max_gap`` time points) is planned from them alone: its rows spread
    evenly over each row group's time span, the time order inside a row group checked by the cells
    that read it. Else the ``t`` values are read (and the atoms where tuple windows count them):
    the time order, the gaps, the atoms per time point."""
    from pathlib import Path

    import numpy as np
    import pyarrow.parquet as pq

    from ..streams.lines import stream_error
    from ..streams.tables import check_columns

    path = Path(path)
    files = _files_of(path)
    if not files:
        raise UsageError.at(None, f"stream directory '{path}' holds no Parquet files")
    try:
        names = pq.read_schema(files[0]).names
    except Exception:  # not Parquet: the single run's reader says what is wrong, located
        return None
    if "atom" not in names or "t" not in names:
        return None
    order = check_columns(names, str(files[0]))
    counted = time_plan(analysis).tuple_lookback > 0
    found, counts = [], {}
    for f in files:
        try:
            part = pq.ParquetFile(f)
            groups = None if counted else _statistics(part, spec.max_gap)
            if groups is None:
                tab = part.read(columns=["t", "atom"] if counted else ["t"], use_threads=False)
        except Exception:
            return None
        if groups is not None:
            if groups:
                found.append((str(f), groups[0][0], groups[-1][1]))
            for first, last, n in groups:
                share, extra = divmod(n, last - first + 1)
                for t in range(first, last + 1):
                    counts[t] = counts.get(t, 0) + share + (t - first < extra)
            continue
        t = tab.column("t")
        if t.null_count:
            raise stream_error(str(f), 1, 1, "a row without a time (t is null)")
        times = t.to_numpy()
        if len(times) == 0:
            continue
        back = np.flatnonzero(np.diff(times) < 0)
        if len(back):
            row = int(back[0]) + 1
            raise stream_error(str(f), row + 1, 1, f"time {times[row]} after time {times[row - 1]}", notes=(ORDERED,))
        found.append((str(f), int(times[0]), int(times[-1])))
        if counted:
            atoms = tab.filter(tab.column("atom").is_valid()).group_by(["t", "atom"]).aggregate([])
            values, n = np.unique(atoms.column("t").to_numpy(), return_counts=True)
        else:  # sorted: the runs of equal times
            cuts = np.flatnonzero(np.diff(times)) + 1
            values, n = times[np.concatenate([[0], cuts])], np.diff(np.concatenate([[0], cuts, [len(times)]]))
        for v, k in zip(values.tolist(), n.tolist()):
            counts[v] = counts.get(v, 0) + k
    found.sort(key=lambda x: x[1])
    for (a, _, end), (b, first, _) in zip(found, found[1:]):
        if first < end:
            raise stream_error(b, 1, 1, f"time {first} after time {end} (in {a})", notes=(ORDERED,))
    last, error = _last(sorted(counts), analysis, spec)
    counts = {t: n for t, n in counts.items() if t <= last}
    return Source(tuple(found), order, counts, last, error)


ORDERED = "a sharded run reads a Parquet stream whose rows and files are in time order"


def _last(times: list, analysis: Analysis, spec) -> tuple:
    """``(last time point to evaluate, error or None)``: the stream's last time, or ``until``; before
    a time point the input stage refuses (more than ``max_gap`` after the one before), its error."""
    stage = Input(analysis, spec, rename=False)
    last = -1
    try:
        for rec in stage.records((Record(t, ()) for t in times), spec.until):
            last = rec.t
    except TickerError as err:
        return last, err
    return (last if spec.until is None else spec.until), None


def _written(stream, analysis: Analysis, spec, scratch) -> Source:
    """Read and check ``stream`` with the input stage, write it to ``scratch``/stream.parquet
    (columns t, atom; duplicates within a time point dropped)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..values import format_atom

    until = spec.until
    stage = Input(analysis, spec, rename=False)
    last, error, counts = -1, None, {}
    scratch.mkdir(parents=True, exist_ok=True)
    path = scratch / "stream.parquet"
    with pq.ParquetWriter(path, pa.schema([("t", pa.int64()), ("atom", pa.string())])) as out:
        ts, texts = [], []
        try:
            for point in time_points(stage.records(stage.open(stream), until), until):
                last = point.t
                if point.atoms:
                    counts[point.t] = len(point.atoms)
                    ts += [point.t] * len(point.atoms)
                    texts += map(format_atom, point.atoms)
                if len(ts) >= 1 << 16:
                    out.write_table(pa.table({"t": pa.array(ts, pa.int64()), "atom": pa.array(texts, pa.string())}))
                    ts, texts = [], []
        except TickerError as err:
            error = err
        if ts:
            out.write_table(pa.table({"t": pa.array(ts, pa.int64()), "atom": pa.array(texts, pa.string())}))
    first, end = (min(counts), max(counts)) if counts else (0, 0)
    return Source(((str(path), first, end),), None, counts, last, error, checked=True)
