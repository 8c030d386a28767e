"""Limits on what the readers and engines accept (docs/semantics.md, "Values and limits").

Each keeps work and memory bounded for any input; going past one is a located user error.
"""

from __future__ import annotations

import operator
import sys

__all__ = [
    "MAX_TERM_DEPTH",
    "MAX_FACT_ATOMS",
    "MAX_NUMBER_DIGITS",
    "MAX_NUMBER_EXPONENT",
    "integer_digits",
    "SHORT_BITS",
    "CLINGO_MIN",
    "CLINGO_MAX",
    "fits_clingo",
    "integral",
]

#: terms (programs and stream atoms) nest at most this deep: function terms, parentheses,
#: arithmetic operators and intervals each add a level
MAX_TERM_DEPTH = 100

#: one program fact expands (through its intervals) to at most this many atoms
MAX_FACT_ATOMS = 1_000_000

#: an RDF literal that writes a number has at most this many digits, and a double or float an
#: exponent of at most this size: their exact values stay small enough to compute with and print
MAX_NUMBER_DIGITS = 1000
MAX_NUMBER_EXPONENT = 1000

#: integers of at most this many bits have fewer digits than any limit Python allows (640 at least)
SHORT_BITS = 2000


def integer_digits() -> int:
    """The most decimal digits an integer may have (0: no limit): Python's limit for converting
    integers to and from text (``sys.get_int_max_str_digits()``), so that every value prints."""
    return sys.get_int_max_str_digits()


#: clingo's integers are 32 bits: values outside this range never reach clingo as numbers
CLINGO_MIN, CLINGO_MAX = -(2**31), 2**31 - 1


def fits_clingo(value: int) -> bool:
    """True if clingo holds the integer exactly."""
    return CLINGO_MIN <= value <= CLINGO_MAX


def integral(value) -> int | None:
    """``value`` as an int if it is an integral number: Python's, or what ``operator.index`` takes
    (numpy's integers, such as a DataFrame's ``np.int64``); None for a bool (Python's or numpy's,
    whose ``__index__`` some numpy versions keep), a float or anything else."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or type(value).__name__ in ("bool", "bool_"):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None
