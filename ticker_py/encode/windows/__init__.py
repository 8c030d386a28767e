"""Window encoders: one per window kind (time, tuple, none) and modality.

Each encoder names the auxiliary atom that stands for a window atom, yields the rules that
define it (its *static* rules, for one evaluation time ``_now(N)``/``_cnt(C)``), as
:mod:`ticker_py.encode.asp` values, and builds its use in a rule body.
``ENCODERS[(ast.WindowKind, ast.Modality)]`` is the dispatch table.
"""

from __future__ import annotations

from ... import ast
from .base import WindowEncoder, arg_vars
from .time import TimeAt, TimeBox, TimeDiamond
from .tuple import TupleAt, TupleBox, TupleDiamond
from .unwindowed import UnwindowedAt

__all__ = ["ENCODERS", "encoder_for", "WindowEncoder", "arg_vars"]

ENCODERS = {
    (enc.kind, enc.modality): enc
    for enc in (TimeDiamond(), TimeBox(), TimeAt(), TupleDiamond(), TupleBox(), TupleAt(), UnwindowedAt())
}


def encoder_for(ext: ast.ExtendedAtom) -> WindowEncoder:
    """The encoder of an extended atom that is not a plain atom."""
    return ENCODERS[(ext.window_kind, ext.modality)]
