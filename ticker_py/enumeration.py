"""Enumeration to a file: every answer stream of every tick, numbered in the printed order of every
output (clingo). A tick's answer streams are sorted in memory up to :data:`SPILL` atoms, beyond that
in sorted runs in temporary files, merged when the tick ends.
"""

from __future__ import annotations

import heapq
import itertools
import json
import tempfile
from collections.abc import Iterable, Iterator
from types import SimpleNamespace
from typing import TextIO

from .compare import prepare_stream
from .engines import EngineOptions
from .spec import INPUT, RunSpec, takes_spec
from .stages.consequences import ConsequenceFold, Consequences
from .stages.drive import drive

__all__ = ["PrintedModels", "enumerate_answer_streams", "SPILL"]

#: printed atoms of one tick kept in memory; beyond, sorted runs go to temporary files
SPILL = 2_000_000


def _unique(keys: Iterable) -> Iterator:
    """Sorted ``keys`` with repeats left out."""
    return (key for key, _ in itertools.groupby(keys))


class PrintedModels:
    """The printed answer streams of one tick (``(atoms, pins)``), given in any order; iterated in
    printed order, each once. Beyond ``spill`` atoms they go to sorted runs in temporary files."""

    def __init__(self, spill: int = SPILL):
        self.keys: list = []
        self.size = 0
        self.runs: list = []
        self.spill = spill

    def add(self, key: tuple) -> None:
        self.keys.append(key)
        self.size += len(key[0]) + len(key[1]) + 1
        if self.size > self.spill:
            run = tempfile.TemporaryFile("w+", encoding="utf-8")
            run.writelines(json.dumps(key) + "\n" for key in _unique(sorted(self.keys)))
            run.seek(0)
            self.runs.append(run)
            self.keys, self.size = [], 0

    def __iter__(self) -> Iterator[tuple]:
        mine, self.keys, self.size = sorted(self.keys), [], 0
        runs, self.runs = self.runs, []
        try:
            yield from _unique(
                heapq.merge(*((tuple(map(tuple, json.loads(line))) for line in run) for run in runs), mine)
            )
        finally:
            for run in runs:
                run.close()


@takes_spec(INPUT, also=("consequences", "show_at"))
def enumerate_answer_streams(
    analysis, stream, out: TextIO, spill: int = SPILL, *, spec: RunSpec
) -> Iterator[Consequences]:
    """Write every answer stream of every tick to ``out`` as JSON Lines (``{"t", "c", "model", "atoms"}``,
    ``"at"``: the pins with ``show_at``; ``"model": null`` for a tick without any), numbered in
    printed order (clingo engine; answer streams that print the same once).

    Yields per tick the count of answer streams and, with ``consequences``, the brave or cautious
    consequences (else ``atoms`` is None). ``spill``: see :class:`PrintedModels`.
    """
    from .engines.clingo_engine import ClingoEngine  # its iter_models(t) yields the solver's models one by one

    mode, show_at = spec.consequences, spec.show_at
    engine = ClingoEngine(analysis, EngineOptions(models=0, show="derived"))
    points = prepare_stream(analysis, stream, spec)
    ticks = SimpleNamespace(append=engine.append, evaluate=lambda t: t)  # the driver names each tick
    for t in drive(ticks, points, spec.every):
        c = engine.count
        fold = ConsequenceFold(mode or "brave")
        tick = PrintedModels(spill)
        for model in engine.iter_models(t):
            tick.add(model.printed_key(pins=show_at))
        for atoms, pins in tick:
            line = {"t": t, "c": c, "model": fold.n, "atoms": list(atoms)} | ({"at": list(pins)} if show_at else {})
            out.write(json.dumps(line) + "\n")
            fold.add(frozenset(atoms + pins)) if mode else setattr(fold, "n", fold.n + 1)
        if fold.n == 0:
            out.write(json.dumps({"t": t, "c": c, "model": None, "atoms": None}) + "\n")
        out.flush()
        res = fold.result(t, c)
        yield res if mode else Consequences(t, c, res.answer_streams, None)
