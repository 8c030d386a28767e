"""One cell of a sharded run: its slice of the Parquet stream read (:func:`read_slice`: the files
and row groups of its time span, its key shard's atoms), its atoms appended from its start on,
every time point of its ranges evaluated, the answers it owns written as rows of atom texts to its
own Parquet part (:func:`run_cell`; the kinds of rows below)."""

from __future__ import annotations

import pickle
import warnings
from collections.abc import Iterator
from pathlib import Path

from ..analysis import GENERAL, Analysis
from ..analysis.sharding import shard_of
from ..api import Reasoner
from ..errors import TickerError, TickerWarning
from ..spec import RunSpec
from ..stages.drive import drive
from ..stages.input import parse_atom
from ..streams.answers import EMPTY, AnswerState
from ..streams.factorized import Factorized
from ..streams.model import Model, Record
from ..syntax.ground_atoms import AtomReader
from ..values import format_atom
from .plan import Grid, Source

# kinds of the rows a cell reports, one row per (cell, t) (models != 1: per model):
# (range, t, model, kind, n, added, removed, pins_added, pins_removed, message); atoms as texts,
# pins as "atom at T" texts
STATE = 0  # models=1: atoms added/removed since the previous time point
MODEL = 1  # models != 1: answer stream number `model`, whole, in `added` / `pins_added`
NONE = 2  # no answer stream at t
ERROR = 3  # the cell's stream was refused at t: `message`
FACTORS = 4  # factorize: the answer streams at t as one pickled Factorized in `message` (bytes)
# n: the number of stream atoms the cell owns at t (on the first row of (cell, t))


def needs_owner_filter(analysis: Analysis, key: dict | None) -> bool:
    """Can a key shard derive a keyed atom whose key value belongs to another shard?

    Not if every rule with a keyed head has a positive keyed body atom: by induction, a keyed
    atom then rests on stream atoms of its own key value, which only its owner has.
    """
    if not key:
        return False
    for rule in analysis.program.proper_rules:
        if rule.head is None or rule.head.atom.predicate not in key:
            continue
        if not any(
            not lit.negated and not lit.is_comparison and lit.element.atom.predicate in key for lit in rule.body
        ):
            return True
    return False


class _Rows:
    """What a cell's reasoner writes to: rows of changes when there is one answer stream for sure
    (the engine may then send changes only: no whole answer per time point)."""

    def __init__(self, analysis: Analysis, spec: RunSpec):
        self.changes_only = (
            spec.models_per_tick == 1
            and analysis.fragment != GENERAL
            and not analysis.has_constraints
            and not spec.factorize
        )


def evaluate_cell(analysis: Analysis, grid: Grid, cell: int, source: Source, spec: RunSpec) -> Iterator[tuple]:
    """Evaluate one cell under ``spec``; yields its report rows
    ``(range, t, model, kind, n, added, removed, pins_added, pins_removed, message)`` (see the kinds)
    for the time points of its ranges.

    ``source``: the stream (:func:`read_slice` reads the cell's slice). Only owned atoms are
    reported (see the module doc), as texts; with ``out`` pins only where they are printed
    (``show_at``, several answer streams).
    Format ``none`` reports the counts and whether there is an answer stream, but no atoms;
    ``factorize``: one FACTORS row per time point (owned atoms only).
    """
    key, shards = grid.key, grid.key_shards
    k, s = divmod(cell, len(grid.spans))
    start, r0, r1 = grid.spans[s]
    models, factorize, answers = spec.models_per_tick, spec.factorize, spec.format != "none"
    # pins can outnumber the atoms many times: left out where nothing prints them (a written run
    # without show_at); the Results of the API carry them, as the single run's
    pinned = answers and (spec.show_at or spec.out in (None, "-") or models != 1 or factorize)
    reasoner = Reasoner(analysis, spec=spec, output=_Rows(analysis, spec))
    stage, evaluation = reasoner.input, reasoner.evaluation
    owner_filter = needs_owner_filter(analysis, key)
    texts: dict = {}  # atom -> text, for the atoms reported

    def text(a):
        got = texts.get(a)
        if got is None:
            if len(texts) > 1 << 18:
                texts.clear()
            got = texts[a] = format_atom(a)
        return got

    def owned(atoms):
        if not answers:
            return []
        if owner_filter:
            atoms = [a for a in atoms if shard_of(a, key, shards) in (None, k)]
        return [text(a) for a in atoms]

    def owned_pins(pins):
        if not pinned:
            return []
        if owner_filter:
            pins = [p for p in pins if shard_of(p[0], key, shards) in (None, k)]
        return [f"{text(a)} at {T}" for a, T in pins]

    def owned_factors(f):
        if not owner_filter or not answers:
            return f if answers else Factorized.build(Model(frozenset()), []) if f.count else f

        def part(m):
            keep = lambda a: shard_of(a, key, shards) in (None, k)  # noqa: E731
            return Model(frozenset(filter(keep, m.atoms)), frozenset(p for p in m.pinned if keep(p[0])))

        return Factorized.build(part(f.common), [[part(m) for m in alt] for alt in f.factors]) if f.count else f

    answer = AnswerState(pins=pinned)  # the cell's answer stream

    def state(res, fresh):
        """``(kind, added, removed, pins_added, pins_removed)`` since the previous time point (from
        nothing when ``fresh``)."""
        if res.models is None:  # changes only
            changed = answer.apply(res.changes)
            return (STATE, answer.atoms, (), answer.pins, ()) if fresh else (STATE, *changed)
        model = res.models[0] if res.models else EMPTY
        changed = AnswerState.diff(EMPTY if fresh else answer.model(), model)
        answer.set((model,))
        return (STATE if res.models else NONE, *changed)

    # the single run's pipeline: the input stage checks the records, the driver appends each time
    # point's distinct atoms and evaluates every time point (the look-back too: answers before
    # the first range are dropped, but the answer stream stays continuous)
    shared: dict = {}  # t -> distinct atoms at t that every key shard reads (not owned by k > 0)
    stage.time = start
    end = grid.ranges[r1][1]
    records = stage.records(read_slice(source, start, end, key, shards, k, shared if k else None))
    r, (t0, t1), c, t = r0, grid.ranges[r0], 0, None
    try:
        for res in drive(evaluation, records, "time", end - 1, start):
            t = res.t
            n, c = res.c - c, res.c
            if t < t0:
                if models == 1 and not factorize:
                    state(res, False)
                continue
            while t >= t1:
                r += 1
                t0, t1 = grid.ranges[r]
            n -= shared.pop(t, 0)
            if factorize:
                yield r, t, 0, FACTORS, n, [], [], [], [], pickle.dumps(owned_factors(res.factors))
            elif models == 1:
                kind, added, removed, pins_added, pins_removed = state(res, t == t0)
                pins = owned_pins(pins_added), owned_pins(pins_removed)
                yield r, t, 0, kind, n, owned(added), owned(removed), *pins, None
            elif not res.models:
                yield r, t, 0, NONE, n, [], [], [], [], None
            else:
                for i, m in enumerate(res.models):
                    yield r, t, i, MODEL, n if i == 0 else 0, owned(m.atoms), [], owned_pins(m.pinned), [], None
    except TickerError as err:
        t = start if t is None else min(t + 1, end - 1)  # the time point the single run stops at
        r = next((i for i in range(r0, r1 + 1) if grid.ranges[i][1] > t), r1)
        yield r, t, 0, ERROR, 0, [], [], [], [], err.diagnostics[0].message.encode()


def read_slice(
    source: Source, start: int, end: int, key: dict | None, shards: int, k: int, shared: dict | None = None
) -> Iterator[Record]:
    """The Records of the time points in [start, end) of ``source`` with atoms of key shard ``k`` of
    ``shards`` (``key`` None: every atom), in time order; a time point whose atoms are those of
    the one before gives the same tuple again (which the driver and the engines do not look at
    twice). Only the files and row groups whose t statistics meet the span are read; the key
    selection is Arrow compute over each distinct atom text (converted once). ``shared``: receives
    the number of distinct atoms at t that are not keyed (every key shard reads them). A text that
    is no atom is refused at its time point, after the atoms before it."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = ["t", "atom"] + ([source.order] if source.order else [])
    known: dict = {}  # atom text -> (atom or None or _Bad, its key shard or -1: every shard's)
    reader = AtomReader()
    t_now, now, order, last = None, [], [], ()

    def flush() -> Record:
        nonlocal last
        atoms = now
        if source.order and order != sorted(order):  # stable, as the single run's reader
            atoms = [atoms[i] for i in sorted(range(len(order)), key=order.__getitem__)]
        atoms = tuple(atoms)
        if atoms == last:
            atoms = last
        last = atoms
        if shared is not None:
            shared[t_now] = len({a for a in atoms if a[0] not in key})
        return Record(t_now, atoms, "<shard>", 0)

    for path, first, final in source.files:
        if final < start or first >= end:
            continue
        for batch in _row_groups(path, columns, start, end):
            col = batch.column("atom")
            if not pa.types.is_dictionary(col.type):
                col = pc.dictionary_encode(col)
            elif len(col.dictionary) > len(col):  # a row group's dictionary of mostly distinct atoms
                col = pc.dictionary_encode(col.dictionary_decode())
            texts = col.dictionary.to_pylist()
            if len(known) > KNOWN:  # a stream of ever new atoms (diamond): memory stays bounded
                known.clear()
            new = [x for x in texts if x not in known]
            if new:
                _convert(new, known, reader, key, shards)
            entries = [known[x] for x in texts]
            atoms = np.empty(len(entries), dtype=object)
            atoms[:] = [e[0] for e in entries]
            take = np.array([e[0] is not None and (e[1] < 0 or e[1] == k) for e in entries] + [False])
            index = col.indices.fill_null(len(entries)).to_numpy()
            rows = np.flatnonzero(take[index])
            ts = batch.column("t").to_numpy()[rows]
            objs = atoms[index[rows]]
            bad = [i for i, e in enumerate(entries) if type(e[0]) is _Bad]
            keys = batch.column(source.order).to_numpy()[rows] if source.order else None
            cuts = np.flatnonzero(np.diff(ts)) + 1
            for a, b in zip([0, *cuts.tolist()], [*cuts.tolist(), len(ts)]):
                if a == b:
                    continue
                t = int(ts[a])
                if t != t_now:
                    if now:
                        yield flush()
                    t_now, now, order = t, [], []
                got = objs[a:b].tolist()
                if bad and any(type(x) is _Bad for x in got):
                    stop = next(i for i, x in enumerate(got) if type(x) is _Bad)
                    now += got[:stop]
                    if now:
                        yield flush()
                    parse_atom(str(got[stop]), t)  # raises the single run's StreamError
                now += got
                if source.order:
                    order += keys[a:b].tolist()
    if now:
        yield flush()


class Unordered(Exception):
    """A cell found rows of a row group out of time order: the run is refused (``error``: the
    located StreamError, as the plan's scan gives it)."""

    def __init__(self, error: TickerError):
        super().__init__(str(error))
        self.error = error


def _row_groups(path: str, columns: list, start: int, end: int) -> Iterator:
    """The record batches of the rows with ``start <= t < end`` of the Parquet file ``path``: only
    the row groups whose ``t`` statistics meet the span are read, each checked in time order
    (:class:`Unordered` if not: the plan saw only their statistics); atoms as dictionary arrays."""
    import numpy as np
    import pyarrow.parquet as pq

    from ..streams.lines import stream_error
    from .plan import ORDERED

    part = pq.ParquetFile(path, read_dictionary=["atom"])
    meta, where, offset = part.metadata, part.schema_arrow.get_field_index("t"), 0
    for i in range(meta.num_row_groups):
        rows, offset = meta.row_group(i).num_rows, offset + meta.row_group(i).num_rows
        stats = meta.row_group(i).column(where).statistics
        if not rows or (stats is not None and stats.has_min_max and (stats.max < start or stats.min >= end)):
            continue
        group = part.read_row_group(i, columns=columns, use_threads=False)
        ts = group.column("t").to_numpy()
        back = np.flatnonzero(np.diff(ts) < 0)
        if len(back):
            j = int(back[0]) + 1
            row = offset - rows + j + 1
            raise Unordered(stream_error(path, row, 1, f"time {ts[j]} after time {ts[j - 1]}", notes=(ORDERED,)))
        a, b = np.searchsorted(ts, start), np.searchsorted(ts, end)
        if a < b:
            yield from group.slice(a, b - a).to_batches(max_chunksize=1 << 17)


def _convert(new: list, known: dict, reader: AtomReader, key: dict | None, shards: int) -> None:
    """Convert atom texts not seen before (an empty text or a null: no atom)."""
    for x in new:
        y = x.strip() if x is not None else ""
        atom, s = None, -1
        if y:
            try:
                atom = reader.atom(y)
            except Exception:  # a bad text: refused at its time point
                atom = _Bad(y)
        if key is not None and atom is not None and type(atom) is not _Bad and atom[0] in key:
            if len(atom) > key[atom[0]] + 1:
                s = shard_of(atom, key, shards)
        known[x] = (atom, s)


class _Bad(str):
    """An atom text that did not parse."""


#: the most atom texts a cell keeps converted (those of recurring atoms are converted once)
KNOWN = 1 << 18


#: a cell part (and a written time range) collects rows until they hold this many atoms (or
#: 4096 rows), then writes them: memory stays bounded whatever the answers' size
BATCH_ATOMS = 1 << 17


class PartWriter:
    """Rows (tuples in ``schema``'s order, ``lists``: the positions of their lists of atoms) written
    to the Parquet file ``path`` in batches of bounded size; a context manager."""

    def __init__(self, path, schema, lists: tuple):
        import pyarrow.parquet as pq

        self.schema, self.lists, self.rows, self.held = schema, lists, [], 0
        self.out = pq.ParquetWriter(str(path), schema)

    def add(self, row: tuple) -> None:
        self.rows.append(row)
        self.held += sum(len(row[i] or ()) for i in self.lists)
        if len(self.rows) >= 4096 or self.held >= BATCH_ATOMS:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self.rows:
            columns = [_column(c, f.type) for c, f in zip(zip(*self.rows), self.schema)]
            self.out.write_batch(pa.RecordBatch.from_arrays(columns, schema=self.schema))
        self.rows, self.held = [], 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._flush()
        self.out.close()


def _column(values: tuple, kind):
    """The Arrow array of one column of rows; a list that recurs as the same object (an answer
    that stays from one time point to the next) is converted once and repeated by Arrow."""
    import pyarrow as pa

    if not pa.types.is_list(kind):
        return pa.array(values, kind)
    first: dict = {}  # id of a list -> its index among the distinct ones
    index = [first.setdefault(id(v), len(first)) for v in values]
    if len(first) == len(values):
        return pa.array(values, kind)
    distinct = [None] * len(first)
    for v, i in zip(values, index):
        distinct[i] = v
    return pa.array(distinct, kind).take(pa.array(index, pa.int32()))


def part_schema():
    """The Arrow schema of a cell part: ``(range, shard, t, model, kind, n, added, removed,
    pins_added, pins_removed, message)``."""
    import pyarrow as pa

    texts, i32 = pa.list_(pa.string()), pa.int32()
    names = ("range", "shard", "t", "model", "kind", "n", "added", "removed", "pins_added", "pins_removed")
    kinds = (i32, i32, pa.int64(), i32, pa.int8(), pa.int64(), texts, texts, texts, texts)
    return pa.schema([*zip(names, kinds), ("message", pa.binary())])


def run_cell(source: Source, analysis: Analysis, grid: Grid, cell: int, spec: RunSpec, parts) -> dict:
    """Evaluate cell ``cell`` over its slice of ``source`` and write its rows to
    ``parts``/cell-<cell>.parquet; returns the stream atoms it owns in each time range (a dict
    range -> count)."""
    k = cell // len(grid.spans)
    totals: dict = {}
    path = Path(parts) / f"cell-{cell:05d}.parquet"
    with PartWriter(path, part_schema(), (6, 7, 8, 9)) as out, warnings.catch_warnings():
        if source.checked:  # the driver's input stage warned already
            warnings.simplefilter("ignore", TickerWarning)
        for row in evaluate_cell(analysis, grid, cell, source, spec):
            totals[row[0]] = totals.get(row[0], 0) + row[4]
            out.add((row[0], k, *row[1:]))
    return totals
