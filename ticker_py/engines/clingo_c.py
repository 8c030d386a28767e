"""clingo's C layer, where this clingo exposes it: a model's shown symbols as interned integers
(equal symbols, equal integers: :attr:`clingo.Symbol._rep`), read without building a
:class:`clingo.Symbol` for each."""

from __future__ import annotations

import clingo

__all__ = ["FAST_SYMBOLS", "raw_shown"]

try:
    from clingo._internal import _c_call, _ffi, _handle_error, _lib

    _SHOWN = _lib.clingo_show_type_shown
    FAST_SYMBOLS = True
except (ImportError, AttributeError):  # pragma: no cover - another clingo version
    FAST_SYMBOLS = False


def raw_shown(model: clingo.Model):
    """The shown symbols of ``model`` as integers (only where :data:`FAST_SYMBOLS`)."""
    rep = model._rep
    size = _c_call("size_t", _lib.clingo_model_symbols_size, rep, _SHOWN)
    buf = _ffi.new("clingo_symbol_t[]", size)
    _handle_error(_lib.clingo_model_symbols(rep, _SHOWN, buf, size))
    return buf
