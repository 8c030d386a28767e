"""One cell of a sharded run: its atoms appended from its start on, every time point of its
ranges evaluated, the answers it owns reported as rows (their kinds below)."""

from __future__ import annotations

import itertools
import pickle
from collections.abc import Iterable, Iterator

from ..analysis import GENERAL, Analysis
from ..analysis.sharding import shard_of
from ..api import Reasoner
from ..errors import Diagnostic, StreamError, TickerError
from ..spec import RunSpec
from ..streams.answers import EMPTY, AnswerState
from ..streams.factorized import Factorized
from ..streams.model import Model
from ..syntax.ground_atoms import AtomReader, GroundSyntaxError, parse_ground_atom
from .plan import Grid

# kinds of the rows a cell reports, one row per (cell, t) (models != 1: per model):
# (range, t, model, kind, n, added, removed, pins_added, pins_removed, message)
STATE = 0  # models=1: atoms added/removed since the previous time point (pickled atoms / (atom, T) pins)
MODEL = 1  # models != 1: answer stream number `model`, whole, in `added` / `pins_added`
NONE = 2  # no answer stream at t
ERROR = 3  # the cell's stream was refused at t: `message`
FACTORS = 4  # factorize: the answer streams at t as one pickled Factorized in `added`
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


def evaluate_cell(analysis: Analysis, grid: Grid, cell: int, rows: Iterable, spec: RunSpec) -> Iterator[tuple]:
    """Evaluate one cell under ``spec``; yields its report rows
    ``(range, t, model, kind, n, added, removed, pins_added, pins_removed, message)`` (see the kinds)
    for the time points of its ranges.

    ``rows``: ``(t, atom)`` of this cell in stream order (t not decreasing), the atom a tuple or a
    string (parsed here; None or empty: ignored). Atoms before the first range are appended
    without evaluating. Atoms are reported pickled; only owned ones (see the module doc). Format
    ``none`` reports the counts and whether there is an answer stream, but no atoms;
    ``factorize``: one FACTORS row per time point (owned atoms only).
    """
    key, shards = grid.key, grid.key_shards
    k, s = divmod(cell, len(grid.spans))
    start, r0, r1 = grid.spans[s]
    models, factorize, answers = spec.models_per_tick, spec.factorize, spec.format != "none"
    reasoner = Reasoner(analysis, spec=spec, output=_Rows(analysis, spec))
    stage, evaluation = reasoner.input, reasoner.evaluation
    owner_filter = needs_owner_filter(analysis, key)
    dumps = pickle.dumps
    reader = AtomReader()

    def owned(atoms):
        if not answers:
            return ()
        if not owner_filter:
            return atoms
        return [a for a in atoms if shard_of(a, key, shards) in (None, k)]

    def owned_pins(pins):
        if not answers:
            return ()
        if not owner_filter:
            return pins
        return [p for p in pins if shard_of(p[0], key, shards) in (None, k)]

    def owned_factors(f):
        if not owner_filter or not answers:
            return f if answers else Factorized.build(Model(frozenset()), []) if f.count else f
        part = lambda m: Model(frozenset(owned(m.atoms)), frozenset(owned_pins(m.pinned)))  # noqa: E731
        return Factorized.build(part(f.common), [[part(m) for m in alt] for alt in f.factors]) if f.count else f

    def parsed(t, group) -> list:
        """The distinct atoms of a time point: tuples (read and checked on the driver already) or
        texts, converted by the stream readers' AtomReader (each distinct term once) and checked."""
        given = [a for _, a in group if a is not None and not (isinstance(a, str) and not a.strip())]
        texts = [a for a in given if isinstance(a, str)]
        if texts:
            try:
                converted = iter(reader.each([x.strip() for x in texts]))
            except (GroundSyntaxError, TypeError):
                converted = iter([_parse(x, t) for x in texts])
            given = [next(converted) if isinstance(a, str) else a for a in given]
        atoms = list(dict.fromkeys(given))  # the same atom twice in a time point counts once
        return stage.accept(t, atoms, f"<shard {cell}>")

    answer = AnswerState()  # the cell's answer stream

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

    groups = itertools.groupby(rows, key=lambda r: r[0])
    pending = next(groups, None)
    t = start
    try:
        while pending is not None and pending[0] < start:  # before the span: not this cell's
            pending = next(groups, None)
        for r in range(r0, r1 + 1):
            t0, t1 = grid.ranges[r]
            while t < t1:
                n = 0
                if pending is not None and pending[0] == t:
                    atoms = parsed(t, pending[1])
                    pending = next(groups, None)
                    evaluation.append(t, atoms)  # checked above by the input stage, as the single run's
                    n = len(atoms) if k == 0 else sum(1 for a in atoms if key is None or a[0] in key)
                if t < t0:
                    t += 1
                    continue
                res = reasoner.evaluate(t)
                if factorize:
                    yield r, t, 0, FACTORS, n, [dumps(owned_factors(res.factors))], [], [], [], None
                elif models == 1:
                    kind, added, removed, pins_added, pins_removed = state(res, t == t0)
                    yield (
                        r,
                        t,
                        0,
                        kind,
                        n,
                        [dumps(a) for a in owned(added)],
                        [dumps(a) for a in owned(removed)],
                        [dumps(p) for p in owned_pins(pins_added)],
                        [dumps(p) for p in owned_pins(pins_removed)],
                        None,
                    )
                elif not res.models:
                    yield r, t, 0, NONE, n, [], [], [], [], None
                else:
                    for i, m in enumerate(res.models):
                        yield (
                            r,
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
                t += 1
    except TickerError as err:
        r = next((i for i in range(r0, r1 + 1) if grid.ranges[i][1] > t), r1)
        yield r, t, 0, ERROR, 0, [], [], [], [], err.diagnostics[0].message


def _parse(text: str, t: int) -> tuple:
    try:
        return parse_ground_atom(text)
    except GroundSyntaxError as err:
        raise StreamError(Diagnostic(f"bad atom '{text}' at time {t}: {err.message}")) from None
