"""Limits on what the readers and engines accept (docs/semantics.md, "Values and limits").

Each keeps work and memory bounded for any input; going past one is a located user error.
"""

from __future__ import annotations

__all__ = [
    "MAX_TERM_DEPTH",
    "MAX_FACT_ATOMS",
    "MAX_NUMBER_DIGITS",
    "MAX_NUMBER_EXPONENT",
    "MAX_COMPUTED_BITS",
    "CLINGO_MIN",
    "CLINGO_MAX",
    "fits_clingo",
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

#: an integer a clingo-solved rule computes has at most this many bits (about 4000 digits: Python
#: prints no longer integer), and an interval it computes at most MAX_FACT_ATOMS integers
MAX_COMPUTED_BITS = 13_000

#: clingo's integers are 32 bits: values outside this range never reach clingo as numbers
CLINGO_MIN, CLINGO_MAX = -(2**31), 2**31 - 1


def fits_clingo(value: int) -> bool:
    """True if clingo holds the integer exactly."""
    return CLINGO_MIN <= value <= CLINGO_MAX
