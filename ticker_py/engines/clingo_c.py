"""clingo's C layer, where this clingo exposes it: a model's shown symbols as interned integers
(equal symbols, equal integers: :attr:`clingo.Symbol._rep`), read without building a
:class:`clingo.Symbol` for each."""

from __future__ import annotations

import clingo

__all__ = ["FAST_SYMBOLS", "raw_shown", "raw_models", "symbol_ids"]

try:
    from clingo._internal import _c_call, _ffi, _handle_error, _lib

    _SHOWN = _lib.clingo_show_type_shown
    FAST_SYMBOLS = _ffi.sizeof("clingo_symbol_t") == 8  # read back as "Q" by symbol_ids
except (ImportError, AttributeError):  # pragma: no cover - another clingo version
    FAST_SYMBOLS = False


def raw_shown(model: clingo.Model):
    """The shown symbols of ``model`` as integers (only where :data:`FAST_SYMBOLS`)."""
    rep = model._rep
    size = _c_call("size_t", _lib.clingo_model_symbols_size, rep, _SHOWN)
    buf = _ffi.new("clingo_symbol_t[]", size)
    _handle_error(_lib.clingo_model_symbols(rep, _SHOWN, buf, size))
    return buf


def raw_models(ctl: clingo.Control, assumptions=(), limit: int = 0) -> list:
    """Solve ``ctl`` (its ``--models`` limit; at most ``limit`` models if > 0) under ``assumptions``
    (program literals) and return every model's shown symbols, each model as ``bytes`` of its
    symbols' integers in clingo's order (:func:`symbol_ids` reads them back).

    The search runs without the Python event callback that :meth:`clingo.Control.solve` installs
    and no :class:`clingo.Model` object is built: per model four calls into clingo and one
    copy (only where :data:`FAST_SYMBOLS`)."""
    lib, ffi = _lib, _ffi
    p_handle = ffi.new("clingo_solve_handle_t**")
    assumed = ffi.new("clingo_literal_t[]", list(assumptions)) if assumptions else ffi.NULL
    _handle_error(
        lib.clingo_control_solve(
            ctl._rep, lib.clingo_solve_mode_yield, assumed, len(assumptions), ffi.NULL, ffi.NULL, p_handle
        )
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
        _SHOWN,
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
            if len(out) == limit:
                break
            if not resume(handle):
                _handle_error(False)
    finally:
        _handle_error(lib.clingo_solve_handle_close(handle))
    return out


def symbol_ids(raw: bytes):
    """The symbol integers of one model of :func:`raw_models`."""
    return memoryview(raw).cast("Q")


def record_ground_program(ctl: clingo.Control, rules: list, facts: set, shown: list, refuse, refused: dict) -> None:
    """Register on ``ctl`` (before grounding) a ground-program observer of the C layer that appends
    ``(choice, head, body, None)`` per rule (facts ``a.`` go to ``facts``), ``(choice, head,
    [(literal, weight)...], bound)`` per weight rule, ``(symbol integer, atom)`` per shown atom,
    and calls ``refuse(what)`` for each callback ``name`` of ``refused`` (name -> what) (only where
    :data:`FAST_SYMBOLS`). Cheaper than :class:`clingo.backend.Observer`: no Python object per call
    beyond the lists."""
    ffi, unpack = _ffi, _ffi.unpack
    append, add, show = rules.append, facts.add, shown.append

    def rule(choice, head, head_size, body, body_size, data):
        if body_size or choice or head_size != 1:
            append(
                (
                    choice,
                    unpack(head, head_size) if head_size else [],
                    unpack(body, body_size) if body_size else [],
                    None,
                )
            )
        else:
            add(head[0])
        return True

    def weight_rule(choice, head, head_size, bound, body, body_size, data):
        append(
            (
                choice,
                unpack(head, head_size) if head_size else [],
                [(b.literal, b.weight) for b in body[0:body_size]] if body_size else [],
                bound,
            )
        )
        return True

    def output_atom(symbol, atom, data):
        show((symbol, atom))
        return True

    def refusing(what):
        def callback(*args):
            refuse(what)
            return True

        return callback

    callbacks = {"rule": rule, "weight_rule": weight_rule, "output_atom": output_atom}
    callbacks.update((name, refusing(what)) for name, what in refused.items())
    observer = ffi.new("clingo_ground_program_observer_t*")
    keep = []
    for name, fn in callbacks.items():
        cb = ffi.callback(ffi.typeof(getattr(observer, name)), fn, error=False)
        keep.append(cb)
        setattr(observer, name, cb)
    _handle_error(_lib.clingo_control_register_observer(ctl._rep, observer, False, ffi.NULL))
    ctl._ticker_observer = (observer, keep)  # alive as long as the Control
