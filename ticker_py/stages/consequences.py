"""Brave and cautious consequences: per tick, the atoms in some / in every answer stream.

>>> from ticker_py.streams import Model, Result
>>> res = Result(0, 0, (Model(frozenset({("a",), ("c",)})), Model(frozenset({("b",), ("c",)}))))
>>> [c.atoms for c in consequences([res], "cautious")], [c.atoms for c in consequences([res], "brave")]
([['c']], [['a', 'b', 'c']])
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..errors import Diagnostic, UsageError
from ..spec import MODES
from ..streams.model import Result

__all__ = ["MODES", "Consequences", "ConsequenceFold", "ConsequencesWriter", "printed_items", "consequences"]


@dataclass(frozen=True)
class Consequences:
    """Brave (in some) or cautious (in every) atoms at one tick; ``atoms`` is None without answer streams."""

    t: int
    c: int
    answer_streams: int
    atoms: list | None

    def to_json(self, mode: str) -> str:
        return json.dumps({"t": self.t, "c": self.c, "answer_streams": self.answer_streams, mode: self.atoms})


class ConsequenceFold:
    """Folds the printed answer streams of one tick into their union (brave) or intersection
    (cautious), counting them."""

    def __init__(self, mode: str):
        if mode not in MODES:
            raise UsageError(Diagnostic(f"unknown consequences '{mode}'", notes=("use brave or cautious",)))
        self.mode, self.acc, self.n = mode, None, 0

    def add(self, printed: frozenset) -> None:
        self.n += 1
        if self.acc is None:
            self.acc = set(printed)
        elif self.mode == "brave":
            self.acc |= printed
        else:
            self.acc &= printed

    def result(self, t: int, c: int) -> Consequences:
        return Consequences(t, c, self.n, None if self.acc is None else sorted(self.acc))


def printed_items(model, show_at: bool) -> frozenset:
    """What prints of a model: its atoms (and pins with ``show_at``) as text."""
    atoms, pins = model.printed_key(pins=show_at)
    return frozenset(atoms + pins)


def consequences(results_iter: Iterable[Result], mode: str, show_at: bool = False) -> Iterator[Consequences]:
    """Per result: the number of answer streams and the brave or cautious consequences (atoms as text)."""
    for res in results_iter:
        if res.factors is not None:  # factorized: brave = common and every alternative, cautious = common
            f = res.factors.printed(show_at)
            part = f.brave() if mode == "brave" else f.cautious()
            yield Consequences(res.t, res.c, f.count, sorted(printed_items(part, show_at)) if f.count else None)
            continue
        fold = ConsequenceFold(mode)
        seen = set()
        for m in res.models or ():
            p = printed_items(m, show_at)
            if p not in seen:
                seen.add(p)
                fold.add(p)
        yield fold.result(res.t, res.c)


class ConsequencesWriter:
    """A writer of the consequences of each result, one JSON line per tick (``ticker run
    --consequences``): ``{"t", "c", "answer_streams", mode: [atom, ...] or null}``."""

    def __init__(self, out, mode: str, show_at: bool = False):
        self.out, self.mode, self.show_at = out, mode, show_at

    def write(self, result: Result) -> None:
        for cons in consequences((result,), self.mode, self.show_at):
            self.out.write(cons.to_json(self.mode) + "\n")
        self.out.flush()

    def close(self, summary: dict) -> None:
        self.out.flush()
