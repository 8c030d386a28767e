"""The process a reasoner runs in: its garbage collector and its C heap.

Readers and engines make millions of small tuples that are no cycles, which the collector's default
thresholds (700, 10, 10) scan over and over: :func:`tune_collector`
(the ``ticker`` command, the benchmark's in-engine runs) and :func:`paused_gc` (while a program or
its analysis is built) spare them. :func:`steady_heap`: docs/rdf.md, "Memory over a run".
"""

from __future__ import annotations

import gc
import os
import sys
from contextlib import contextmanager

__all__ = ["tune_collector", "paused_gc", "steady_heap", "HEAP_SETTINGS"]


def tune_collector() -> None:
    """Objects made so far are frozen out of every scan; collections run far less often."""
    gc.freeze()
    gc.set_threshold(50_000, 20, 50)


#: a block that leaves this many more objects to the cycle collector freezes them (see paused_gc)
FREEZE_OBJECTS = 200_000


@contextmanager
def paused_gc():
    """Pause Python's cycle collector in the block. A block that leaves many new objects
    (FREEZE_OBJECTS) moves them to the permanent generation (``gc.freeze``), so that later
    collections skip them too (reference counting still frees them)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_count()[0] > FREEZE_OBJECTS:
                gc.freeze()
            gc.enable()


#: glibc's ``mallopt`` settings of a run (docs/rdf.md, "Memory over a run"): blocks of 4 MB and more
#: (the tables of a window's large dicts, replaced every few dozen time points) are mapped and
#: given back when freed; smaller ones (what a time point allocates and frees) come from the heap,
#: which gives back a free top of more than 8 MB. glibc's default moves its threshold up to the
#: largest block freed so far, so the large tables moved into the heap one by one over the run.
HEAP_SETTINGS = {-3: 4 << 20, -1: 8 << 20}  # M_MMAP_THRESHOLD, M_TRIM_THRESHOLD
#: what a user sets instead (glibc reads these at start-up)
_USER_HEAP = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_")


def steady_heap(environ=os.environ) -> bool:
    """Set :data:`HEAP_SETTINGS` with glibc's ``mallopt`` (so memory stays flat over a long run); True
    if set. Not on other C libraries, nor when the environment sets glibc's malloc knobs itself."""
    if (
        not sys.platform.startswith("linux")
        or any(k in environ for k in _USER_HEAP)
        or "glibc.malloc." in environ.get("GLIBC_TUNABLES", "")
    ):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 - glibc only: other C libraries ignore or mean other numbers
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return all([mallopt(param, value) == 1 for param, value in HEAP_SETTINGS.items()])
