"""Streaming enumeration: every answer stream of every tick written as it is produced (clingo)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TextIO

from .compare import prepare_stream
from .consequences import ConsequenceFold, Consequences, printed_items
from .engines import EngineOptions
from .streams.drive import Every, drive

__all__ = ["AnswerStreamWriter", "enumerate_answer_streams"]


class AnswerStreamWriter:
    """JSON Lines, one line per answer stream as it is produced.

    ``{"t": 7, "c": 3, "model": 0, "atoms": ["b(y)"]}`` (plus ``"at"`` pins with show_at);
    a tick without answer streams is one line with ``"model": null, "atoms": null``.
    """

    def __init__(self, out: TextIO, show_at: bool = False):
        self.out, self.show_at = out, show_at

    def write_model(self, t: int, c: int, index: int, model) -> None:
        obj = {"t": t, "c": c, "model": index, "atoms": model.sorted_atoms()}
        if self.show_at:
            obj["at"] = model.sorted_pinned()
        self.out.write(json.dumps(obj) + "\n")

    def write_none(self, t: int, c: int) -> None:
        self.out.write(json.dumps({"t": t, "c": c, "model": None, "atoms": None}) + "\n")


def _streaming_clingo(analysis, show: str = "derived"):
    """A clingo engine whose ``iter_models(t)`` yields every model one by one from the solver."""
    from .engines.clingo_engine import ClingoEngine

    return ClingoEngine(analysis, EngineOptions(models=0, show=show))


class _Ticks:
    """The engine as the driver sees it: appending as usual, ``evaluate`` only names the tick."""

    def __init__(self, engine):
        self.append = engine.append

    @staticmethod
    def evaluate(t: int) -> int:
        return t


def enumerate_answer_streams(
    analysis,
    records,
    out: TextIO,
    mode: str | None = None,
    until: int | None = None,
    every: str = Every.TIME,
    show_at: bool = False,
    tuple_order: str = "arrival",
) -> Iterator[Consequences]:
    """Write every answer stream of every tick to ``out`` as it is produced (clingo engine).

    Yields per tick the count of answer streams and, with ``mode``, the brave or cautious
    consequences (else ``atoms`` is None). Models are never collected: only a hash of each
    printed model per tick is kept, to print models that print the same once.
    """
    engine = _streaming_clingo(analysis)
    writer = AnswerStreamWriter(out, show_at)
    points = prepare_stream(analysis, records, until, tuple_order)
    for t in drive(_Ticks(engine), points, every):
        c = engine.count
        fold = ConsequenceFold(mode or "brave")
        seen = set()
        for model in engine.iter_models(t):
            p = printed_items(model, show_at)
            h = hash(p)
            if h in seen:
                continue
            seen.add(h)
            writer.write_model(t, c, fold.n, model)
            fold.add(p) if mode else setattr(fold, "n", fold.n + 1)
        if fold.n == 0:
            writer.write_none(t, c)
        out.flush()
        res = fold.result(t, c)
        yield res if mode else Consequences(t, c, res.answer_streams, None)
