"""Every model of a solve, read through clingo's C layer where it can: the one module that reaches
clingo's private API (``clingo._internal``, ``Control._rep``), an accelerator.

The incremental engine enumerates all of U's answer sets per distinct facts text (B1 at n = 200,
``--models 0``: 109,842 models). :func:`answers` reads them: on the canonical path through the
public API (:meth:`clingo.Control.solve`, :meth:`clingo.Model.symbols`), each symbol converted at
once; through the C layer (:data:`C_LAYER`), without the Python event callback of
:meth:`~clingo.Control.solve` and without a :class:`clingo.Symbol` per symbol, a large solve's
answers stay compact (the symbols' integers as ``bytes``) until :func:`items` converts one when an
answer stream is read. Both give the same items in the same order (tests/test_hybrid_models.py).
"""

from __future__ import annotations

import clingo

from .. import accelerators
from .clingo_engine import shown_items

__all__ = ["C_LAYER", "answers", "items"]

try:
    from clingo._internal import _ffi, _handle_error, _lib

    #: the C layer is read (accelerators on, and this clingo's symbols are 8 bytes, as read back)
    C_LAYER = accelerators.ENABLED and _ffi.sizeof("clingo_symbol_t") == 8
except (ImportError, AttributeError):  # pragma: no cover - another clingo version
    C_LAYER = False


def answers(ctl: clingo.Control, cache: dict, convert, convert_up_to: int) -> tuple:
    """``(answers, symbols)``: every model of ``ctl`` (to its ``--models`` limit), each as the list
    of ``convert(symbol)`` of its shown symbols in clingo's order (each symbol converted once per
    ``cache``), and how many shown symbols they hold in all. Through the C layer, answers holding
    more than ``convert_up_to`` symbols in all stay compact: read each with :func:`items`."""
    if not C_LAYER:
        with ctl.solve(yield_=True) as handle:
            out = [shown_items(model, cache, convert) for model in handle]
        return out, sum(map(len, out))
    raw = _raw_models(ctl)
    size = sum(map(len, raw)) // 8
    return (raw if size > convert_up_to else [_raw_items(r, cache, convert) for r in raw]), size


def items(answer, cache: dict, convert) -> list:
    """The items of one answer of :func:`answers` (converted now if it was kept compact)."""
    return answer if type(answer) is list else _raw_items(answer, cache, convert)


def _raw_items(raw: bytes, cache: dict, convert) -> list:
    """``convert(symbol)`` of each symbol integer of ``raw``, each converted once per ``cache``
    (keyed by the integer: equal symbols have equal integers in one process)."""
    get, symbol = cache.get, clingo.symbol.Symbol
    out = []
    for rep in memoryview(raw).cast("Q"):
        item = get(rep)
        if item is None:
            item = cache[rep] = convert(symbol(rep))
        out.append(item)
    return out


def _raw_models(ctl: clingo.Control) -> list:
    """Solve ``ctl`` and return every model's shown symbols as ``bytes`` of their integers, in
    clingo's order: per model four calls into clingo and one copy."""
    lib, ffi = _lib, _ffi
    p_handle = ffi.new("clingo_solve_handle_t**")
    _handle_error(
        lib.clingo_control_solve(ctl._rep, lib.clingo_solve_mode_yield, ffi.NULL, 0, ffi.NULL, ffi.NULL, p_handle)
    )
    handle = p_handle[0]
    p_model, p_size = ffi.new("clingo_model_t**"), ffi.new("size_t*")
    capacity = 256
    buf = ffi.new("clingo_symbol_t[]", capacity)
    next_model, resume = lib.clingo_solve_handle_model, lib.clingo_solve_handle_resume
    size_of, symbols, buffer, null, shown = (
        lib.clingo_model_symbols_size,
        lib.clingo_model_symbols,
        ffi.buffer,
        ffi.NULL,
        lib.clingo_show_type_shown,
    )
    out = []
    try:
        while True:
            if not next_model(handle, p_model):
                _handle_error(False)
            model = p_model[0]
            if model == null:
                break
            if not size_of(model, shown, p_size):
                _handle_error(False)
            n = p_size[0]
            if n > capacity:
                capacity = 2 * n
                buf = ffi.new("clingo_symbol_t[]", capacity)
            if not symbols(model, shown, buf, n):
                _handle_error(False)
            out.append(buffer(buf, 8 * n)[:])
            if not resume(handle):
                _handle_error(False)
    finally:
        _handle_error(lib.clingo_solve_handle_close(handle))
    return out
