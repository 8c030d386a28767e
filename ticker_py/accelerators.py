"""The one switch for accelerators.

An accelerator is code that exists only to make a path faster than its readable twin (the canonical
path). Each lives in one module, asks :data:`ENABLED` before it is used, and has a test that it gives
exactly what the canonical path gives. ``TICKER_ACCELERATORS=off`` in the environment (read once, at
import) turns every one off, so that the canonical path runs alone; docs/architecture.md lists them.
"""

from __future__ import annotations

import os

__all__ = ["ENABLED", "ENV"]

#: the environment variable that turns every accelerator off (``off``, ``0``, ``false`` or ``no``)
ENV = "TICKER_ACCELERATORS"

#: False where the environment turns accelerators off
ENABLED = os.environ.get(ENV, "on").strip().lower() not in {"off", "0", "false", "no"}
