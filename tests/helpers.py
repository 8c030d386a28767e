"""Shared test helpers.

Slow tests (``@pytest.mark.slow``) run in every test run, but as a bounded sample unless
``TICKER_SLOW=full``: use ``scaled(full, sample)`` for their sizes and example counts.
"""

import contextlib
import os

SLOW_MODE = os.environ.get("TICKER_SLOW", "sample")


def scaled(full: int, sample: int) -> int:
    """``full`` in a full slow run (TICKER_SLOW=full), ``sample`` otherwise."""
    return full if SLOW_MODE == "full" else sample


def drain(records) -> tuple:
    """``([(t, atoms, source, line), ...], error text or None)`` of a reader's records."""
    from ticker_py.errors import StreamError

    out = []
    try:
        for r in records:
            out.append((r.t, r.atoms, r.source, r.line))
    except StreamError as e:
        return out, str(e)
    return out, None


def ticker(capsys, *argv) -> tuple:
    """``ticker ARGV`` in this process: ``(status, stdout, stderr)``."""
    from ticker_py.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def records_until_error(records) -> list:
    """The records a reader yields before its first StreamError (if any)."""
    from ticker_py.errors import StreamError

    out = []
    try:
        out.extend(records)
    except StreamError:
        pass
    return out


@contextlib.contextmanager
def accelerators_set(enabled: bool):
    """``ticker_py.accelerators.ENABLED`` set to ``enabled`` for the block, then as it was (the
    suite also runs with accelerators off: a block must not turn them back on)."""
    from ticker_py import accelerators

    before = accelerators.ENABLED
    accelerators.ENABLED = enabled
    try:
        yield
    finally:
        accelerators.ENABLED = before
