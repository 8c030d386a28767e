"""Boxes over derived predicates: per-atom counters instead of window scans.

``q always [n]`` holds for an atom a at time t iff a holds now and is pinned (``q(a) at u``) at
every u in ``[max(0, t-n), t-1]``: an evaluation costs what changed, not ``n``.
"""

from __future__ import annotations

from ...windows import before_now, first_point

__all__ = ["PinCover"]


class PinCover:
    """Counts, per atom of q, its pins inside the box window ``[lo, hi]`` of size n."""

    def __init__(self, n: int):
        self.n = n
        self.pinned_at: dict = {}  # u -> set of atoms pinned at u
        self.count: dict = {}
        self.lo, self.hi = 0, -1

    def _add(self, atoms, d):
        count = self.count
        for a in atoms:
            c = count.get(a, 0) + d
            if c:
                count[a] = c
            else:
                del count[a]

    def pinned(self, a, u, d: int = 1) -> None:
        """Atom a pinned at u (``d`` 1), or no longer (``d`` -1)."""
        at = self.pinned_at.setdefault(u, set())
        (at.add if d > 0 else at.discard)(a)
        if not at:
            del self.pinned_at[u]
        if self.lo <= u <= self.hi:
            self._add((a,), d)

    def move(self, t: int) -> None:
        """Slide the window to ``[max(0, t-n), t-1]``."""
        lo, hi = first_point(t, self.n), before_now(t, self.n)[1]
        at = self.pinned_at
        old_lo, old_hi = self.lo, self.hi
        if hi < lo or lo > old_hi or hi < old_lo or old_hi < old_lo:
            self.count = {}
            for u in self._times(lo, hi):
                self._add(at[u], 1)
        else:
            for u in self._times(old_lo, min(old_hi, lo - 1)):
                self._add(at[u], -1)
            for u in self._times(max(old_hi + 1, lo), hi):
                self._add(at[u], 1)
        self.lo, self.hi = lo, hi

    def _times(self, lo: int, hi: int):
        """The pinned time points in ``[lo, hi]`` (by range or by key, whichever is shorter)."""
        at = self.pinned_at
        if hi < lo:
            return ()
        if hi - lo < len(at):
            return [u for u in range(lo, hi + 1) if u in at]
        return [u for u in at if lo <= u <= hi]

    def holding(self, now_facts) -> list:
        """The atoms of ``now_facts`` pinned at every time point of the (non-empty) window."""
        width = self.hi - self.lo + 1
        count = self.count
        if len(count) < len(now_facts):
            return [a for a, c in count.items() if c == width and a in now_facts]
        return [a for a in now_facts if count.get(a) == width]
