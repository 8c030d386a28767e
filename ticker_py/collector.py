"""Cyclic garbage collection tuned for a reasoning process (the ``ticker`` command and the
benchmark's in-engine runs, so that both pay the same collector).

Readers and engines make millions of small tuples that are not cycles; the default thresholds
(700, 10, 10) scan them over and over (about 10% of a run's CPU time).
"""

from __future__ import annotations

import gc

__all__ = ["tune_collector"]


def tune_collector() -> None:
    """Objects made so far are frozen out of every scan; collections run far less often."""
    gc.freeze()
    gc.set_threshold(50_000, 20, 50)
