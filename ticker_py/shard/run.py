"""A sharded run: its plan, its cells (one after another in this process, or in Spark tasks by
:mod:`ticker_py.spark.shard`), its time ranges merged (:class:`ShardedRun`), and the answers a
``--out`` run wrote (:func:`read_results`)."""

from __future__ import annotations

import dataclasses
import heapq
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from ..api import analysed
from ..errors import Diagnostic, TickerError, UsageError
from ..spec import EVALUATION, INPUT, PROGRAM, SHARDS, RunSpec, takes_spec
from ..streams.model import Result
from ..syntax.ground_atoms import AtomReader
from .cell import PartWriter, Unordered, run_cell
from .merge import merge_range, parsed, rows
from .plan import check_sharded, make_grid, prepare

#: the columns of a cell's part the merge reads
_NAMES = ("shard", "t", "model", "kind", "n", "added", "removed", "pins_added", "pins_removed", "message")


def _rows(path, r: int) -> Iterator[tuple]:
    """The rows of time range r in a cell's part, in order: only its row groups (by their ``range``
    statistics; a cell writes its ranges one after another), a small batch at a time."""
    import pyarrow.parquet as pq

    part = pq.ParquetFile(str(path))
    meta, where = part.metadata, part.schema_arrow.get_field_index("range")
    groups = []
    for i in range(meta.num_row_groups):
        stats = meta.row_group(i).column(where).statistics
        if stats is None or not stats.has_min_max or stats.min <= r <= stats.max:
            groups.append(i)
    for batch in part.iter_batches(batch_size=1024, row_groups=groups, columns=["range", *_NAMES]):
        ranges = batch.column(0).to_pylist()
        for got, row in zip(ranges, zip(*(batch.column(c).to_pylist() for c in _NAMES))):
            if got == r:
                yield row


class ShardedRun:
    """The plan of a sharded run of ``analysis`` over ``stream`` in ``shards`` cells, its working
    directory ``scratch`` (the stream written there if it is not Parquet, and the cells' parts);
    ``source``: the stream's :class:`~ticker_py.shard.plan.Source` if scanned already.
    The tasks call :meth:`cell` (each returns its counts), the driver then :meth:`counted` with
    them, and :meth:`results` or :meth:`write` per time range."""

    def __init__(self, analysis, stream, spec: RunSpec, shards: int, scratch, source=None):
        self.analysis, self.spec, self.scratch = analysis, spec, Path(scratch)
        self.source = source or prepare(stream, analysis, spec, self.scratch / "stream")
        self.grid = make_grid(analysis, shards, self.source.counts, self.source.last, spec.shard_by, spec.inertia)
        self.parts = self.scratch / "cells"
        self.parts.mkdir(parents=True, exist_ok=True)
        self.cpu = 0.0  # CPU seconds of the tasks (cells and writes)

    def __getstate__(self):  # what a task needs: not the counts per time point, nor the error
        return {**self.__dict__, "source": dataclasses.replace(self.source, counts={}, error=None)}

    @property
    def error(self):
        """The stream's error found while planning, raised once everything before it is written."""
        return self.source.error

    def cell(self, cell: int) -> tuple:
        """Evaluate one cell, write its part; ``(its owned atoms per time range, the CPU seconds it
        took, None or the refusal of a stream out of time order as (error class, diagnostics))``."""
        cpu, refused = time.process_time(), None
        try:
            counts = run_cell(self.source, self.analysis, self.grid, cell, self.spec, self.parts)
        except Unordered as err:
            counts, refused = {}, (type(err.error), err.error.diagnostics)
        return counts, time.process_time() - cpu, refused

    def counted(self, cells) -> None:
        """The cells' results in: each range's count c before it (the merge's base), and the CPU
        seconds of all cells (:attr:`cpu`); raises the refusal of the earliest cell that found its
        rows out of time order."""
        per_range = [0] * len(self.grid.ranges)
        self.cpu += sum(cpu for _, cpu, _ in cells)
        spans = len(self.grid.spans)
        refused = [(i % spans, r) for i, (_, _, r) in enumerate(cells) if r is not None]
        if refused:
            kind, diagnostics = min(refused, key=lambda x: x[0])[1]
            raise kind(list(diagnostics))
        for got, _, _ in cells:
            for r, n in got.items():
                per_range[r] += n
        bases, acc = [], 0
        for n in per_range:
            bases.append(acc)
            acc += n
        self.grid = dataclasses.replace(self.grid, bases=tuple(bases))

    def results(self, r: int) -> Iterator[Result]:
        """The merged Results of time range r, answer streams of atom texts; the cells' parts are
        read a batch at a time, merged in time order."""
        grid = self.grid
        s = next(i for i, (_, r0, r1) in enumerate(grid.spans) if r0 <= r <= r1)
        parts = [self.parts / f"cell-{grid.cell(k, s):05d}.parquet" for k in range(grid.key_shards)]
        got = heapq.merge(*(_rows(p, r) for p in parts), key=lambda row: (row[1], row[0], row[2]))
        return merge_range(grid, r, got, self.spec.models_per_tick)

    def write(self, r: int, out) -> tuple:
        """Write time range r's rows to ``out``/range=r/part-0.parquet; ``(the error that ends it
        (its message) or None, the CPU seconds it took)``."""
        cpu = time.process_time()
        import pyarrow as pa

        texts = pa.list_(pa.string())
        schema = pa.schema(
            [("t", pa.int64()), ("c", pa.int64()), ("model", pa.int32()), ("atoms", texts), ("pins", texts)]
            + [("factor", pa.int32()), ("alternative", pa.int32())]
        )
        folder = Path(out) / f"range={r}"
        folder.mkdir(parents=True, exist_ok=True)
        error = None
        with PartWriter(folder / "part-0.parquet", schema, (3, 4)) as sink:
            try:
                for result in self.results(r):
                    for row in rows(result, r):
                        sink.add(row[1:])
            except TickerError as err:  # a stream error: the range ends there
                error = err.diagnostics[0].message
        return error, time.process_time() - cpu

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)


@takes_spec(PROGRAM, INPUT, EVALUATION, SHARDS, also=("format",), loads=True, exclude=("tuple_order", "explainable"))
def run_sharded_local(program, stream, *, spec: RunSpec) -> Iterator[Result]:
    """The sharded run without Spark: plan, evaluate the cells one after another, merge.

    The same functions as the Spark run's executors; useful to check a plan and in tests. Keywords
    as for :func:`ticker_py.run_sharded`; ``format="none"``: Results with empty answer streams
    (counts and "no answer stream" only); ``factorize``: Results carrying their factorization
    (``Result.factors``), the key shards' factors side by side.
    """
    analysis = analysed(program, spec)
    check_sharded(analysis, spec)
    return _local(analysis, stream, spec)


def _local(analysis, stream, spec: RunSpec):
    run = ShardedRun(analysis, stream, spec, spec.shards or 1, tempfile.mkdtemp(prefix="ticker-shards-"))
    try:
        run.counted([run.cell(c) for c in range(run.grid.cells)])
        yield from merged(run)
    finally:
        run.close()


def merged(run: ShardedRun) -> Iterator[Result]:
    """The merged Results of every time range in order, with atoms; then the stream's error, if any."""
    reader = AtomReader()
    for r in range(len(run.grid.ranges)):
        for result in run.results(r):
            yield parsed(result, reader)
    if run.error is not None:
        raise run.error


def read_results(path) -> object:
    """The answers a Spark run wrote (``ticker run --spark --out DIR``), as a pandas DataFrame.

    Parameters
    ----------
    path : str or Path
        The directory the run wrote; one without the completion marker ``_SUCCESS`` (an unfinished
        or failed run) is refused.

    Returns
    -------
    pandas.DataFrame
        Sorted by (t, model): ``t``, ``c`` (the tick's count), ``model`` (the answer stream's number
        from 0; missing where there is no answer stream at t), ``atoms`` and ``pins`` (lists of atom
        texts, pins as ``"p(1) at 3"``), ``range`` (the time range that computed it); with
        ``factorize`` ``factor`` and ``alternative`` (see :func:`ticker_py.spark.shard.write_sharded`).

    See Also
    --------
    ticker_py.run_sharded, ticker_py.spark.shard.write_sharded
    """
    from pathlib import Path

    import pyarrow.dataset as ds

    path = Path(path)
    if not (path / "_SUCCESS").exists():
        raise UsageError(
            Diagnostic(f"'{path}' holds no finished sharded run", notes=("a finished run writes _SUCCESS there",))
        )
    table = ds.dataset(str(path), format="parquet", partitioning="hive").to_table()
    frame = table.to_pandas()
    cols = ["t", "c", "model", "atoms", "pins", "range", "factor", "alternative"]
    order = ["t", "model", "factor", "alternative"]
    return frame[cols].sort_values(order, na_position="first").reset_index(drop=True)
