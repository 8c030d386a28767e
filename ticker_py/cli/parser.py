"""The argument parser of every command: no option silently drops a value.

An option given twice either merges its values in order (``action=MERGED``) or is a usage error
(status 2), where argparse would keep the last value without a word. A bad command line is one line
on stderr, not the whole usage.
"""

from __future__ import annotations

import argparse
from functools import partial

from ..errors import Diagnostic, UsageError

__all__ = ["Parser", "MERGED", "ArgumentsError"]

#: the action of a repeatable option: every value kept, in the order given (a list; None if never given)
MERGED = "extend_merged"


class ArgumentsError(UsageError):
    """A command line argparse refuses; ``prog`` names the command (``ticker run``)."""

    def __init__(self, prog: str, message: str):
        super().__init__(Diagnostic(message))
        self.prog = prog

    def __str__(self) -> str:
        return f"{self.prog}: {super().__str__()}"


def _given(parser) -> dict:
    """The options of ``parser`` given so far in the parse under way: dest -> (option, value)."""
    return parser.__dict__.setdefault("_ticker_given", {})


def _once(parser, action, option_string, value) -> None:
    """Refuse the second occurrence of a single-valued option (argparse would keep the last)."""
    given = _given(parser)
    key = action.dest
    if key in given:
        first, before = given[key]
        same = first if first == option_string else f"{first} and {option_string}"
        what = (
            "given twice (give it once)"
            if action.nargs == 0
            else f"given twice ('{before}', then '{value}'); it takes one value"
        )
        raise ArgumentsError(parser.prog, f"argument {same}: {what}")
    given[key] = (option_string, value)


class _Store(argparse._StoreAction):
    def __call__(self, parser, namespace, values, option_string=None):
        _once(parser, self, option_string, values)
        super().__call__(parser, namespace, values, option_string)


class _StoreConst(argparse._StoreConstAction):
    def __call__(self, parser, namespace, values, option_string=None):
        _once(parser, self, option_string, None)
        super().__call__(parser, namespace, values, option_string)


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose single-valued options refuse a second occurrence and whose
    errors are an :class:`ArgumentsError` (subcommand parsers are of this class too)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, action in (
            (None, _Store),
            ("store", _Store),
            ("store_const", _StoreConst),
            ("store_true", partial(_StoreConst, const=True, default=False)),
            ("store_false", partial(_StoreConst, const=False, default=True)),
            (MERGED, argparse._AppendAction),  # each occurrence appends its value (the default must be None)
        ):
            self.register("action", name, action)

    def parse_known_args(self, args=None, namespace=None):
        self.__dict__["_ticker_given"] = {}  # each parse counts afresh
        return super().parse_known_args(args, namespace)

    def error(self, message):
        raise ArgumentsError(self.prog, message)
