"""Window encoders: one per window kind (time, tuple, none) and modality, in
``ENCODERS[(ast.WindowKind, ast.Modality)]``."""

from __future__ import annotations

from ... import ast
from .base import WindowEncoder
from .time import TimeAt, TimeBox, TimeDiamond, UnwindowedAt
from .tuple import TupleAt, TupleBox, TupleDiamond

__all__ = ["ENCODERS", "encoder_for"]

ENCODERS = {
    (enc.kind, enc.modality): enc
    for enc in (TimeDiamond(), TimeBox(), TimeAt(), TupleDiamond(), TupleBox(), TupleAt(), UnwindowedAt())
}


def encoder_for(ext: ast.ExtendedAtom) -> WindowEncoder:
    """The encoder of an extended atom that is not a plain atom."""
    return ENCODERS[(ext.window_kind, ext.modality)]
