"""The window-covered stream the solver engines pass to clingo (Prop. 2 of the Ticker paper)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence

__all__ = ["WindowHistory"]


class WindowHistory:
    """The stream's atoms as ``(t, count, atom)`` entries, minus those no window reads any more.

    ``count`` numbers every atom appended (also those not kept); ``trim(t)`` drops the entries
    before every time window and @-atom at t (``lookback`` None: none are dropped by time) and
    outside the last ``tuple_lookback`` atoms. With ``whole_points`` (``tuple_ties=choice``:
    any atoms of a tuple window's boundary time point may be in the window) the time point of
    the oldest of those atoms is kept whole.
    """

    def __init__(self, lookback: int | None, tuple_lookback: int, whole_points: bool = False):
        self.lookback, self.tuple_lookback = lookback, tuple_lookback
        self.whole_points = whole_points
        self.entries: deque = deque()
        self.count = 0

    def __iter__(self) -> Iterator[tuple]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def extend(self, t: int, atoms: Sequence[tuple], keep: Callable[[tuple], bool] | None = None) -> None:
        """Count the atoms that arrived at t and keep those ``keep`` accepts (all by default)."""
        count, entries = self.count, self.entries
        for atom in atoms:
            count += 1
            if keep is None or keep(atom):
                entries.append((t, count, atom))
        self.count = count

    def covered_from(self, t: int) -> int:
        """The first time point a time window or @-atom can read at t."""
        return 0 if self.lookback is None else max(0, t - self.lookback)

    def trim(self, t: int) -> int:
        """Drop what no window reads at t; returns :meth:`covered_from` t."""
        lo = drop = self.covered_from(t)
        entries, keep = self.entries, self.count - self.tuple_lookback
        if self.whole_points:
            boundary = next((u for u, k, _ in entries if k > keep), None)
            drop = lo if boundary is None else min(lo, boundary)
        while entries and entries[0][0] < drop and entries[0][1] <= keep:
            entries.popleft()
        return lo
