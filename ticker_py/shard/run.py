"""The sharded run in this process (the cells one after another) and the answers a Spark run
wrote to disk."""

from __future__ import annotations

from collections.abc import Iterator

from ..api import analysed
from ..errors import Diagnostic, UsageError
from ..spec import EVALUATION, INPUT, PROGRAM, SHARDS, RunSpec, takes_spec
from ..streams.model import Result
from .cell import evaluate_cell
from .merge import merge_range
from .plan import cell_rows, make_grid, plan_for, read_stream


@takes_spec(PROGRAM, INPUT, EVALUATION, SHARDS, also=("format",), loads=True, exclude=("tuple_order", "explainable"))
def run_sharded_local(program, stream, *, spec: RunSpec) -> Iterator[Result]:
    """The sharded run without Spark: read, cut into cells, evaluate them one after another, merge.

    The same functions as the Spark run's executors; useful to check a plan and in tests. Keywords
    as for :func:`ticker_py.run_sharded`; ``format="none"``: Results with empty answer streams
    (counts and "no answer stream" only); ``factorize``: Results carrying their factorization
    (``Result.factors``), the key shards' factors side by side.
    """
    analysis = analysed(program, spec)
    plan_for(analysis, spec.shard_by, spec.inertia)
    return _local(analysis, stream, spec)


def _local(analysis, stream, spec: RunSpec):
    points, last, error = read_stream(stream, analysis, spec)
    grid = make_grid(analysis, spec.shards or 1, {t: len(a) for t, a in points}, last, spec.shard_by, spec.inertia)
    rows = cell_rows(points, grid)
    by_range: dict = {}
    for cell in range(grid.cells):
        k = cell // len(grid.spans)
        for row in evaluate_cell(analysis, grid, cell, rows[cell], spec):
            by_range.setdefault(row[0], []).append((k, *row[1:]))
    for r in range(len(grid.ranges)):
        got = sorted(by_range.pop(r, ()), key=lambda row: row[1])
        yield from merge_range(grid, r, got, spec.models_per_tick)
    if error is not None:
        raise error


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
