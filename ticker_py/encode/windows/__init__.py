"""Window encoders: one per window kind (time, tuple, none) and modality.

Each encoder names the auxiliary atom that stands for a window atom, yields the rules that
define it (its *static* rules, for one evaluation time ``_now(N)``/``_cnt(C)``), and prints
its use in a rule body. ``ENCODERS[(kind, modality)]`` is the dispatch table.
"""

from __future__ import annotations

from ... import ast
from .base import WindowEncoder, arg_vars
from .time import TimeAt, TimeBox, TimeDiamond
from .tuple import TupleAt, TupleBox, TupleDiamond
from .unwindowed import UnwindowedAt

__all__ = ["ENCODERS", "encoder_for", "WindowEncoder", "arg_vars"]

ENCODERS = {
    ("time", ast.DIAMOND): TimeDiamond(),
    ("time", ast.BOX): TimeBox(),
    ("time", ast.AT): TimeAt(),
    ("tuple", ast.DIAMOND): TupleDiamond(),
    ("tuple", ast.BOX): TupleBox(),
    ("tuple", ast.AT): TupleAt(),
    ("none", ast.AT): UnwindowedAt(),
}


def encoder_for(ext: ast.ExtendedAtom) -> WindowEncoder:
    """The encoder of an extended atom that is not a plain atom."""
    kind = "none" if ext.window is None else ("tuple" if ext.window.is_tuple else "time")
    return ENCODERS[(kind, ext.modality)]
