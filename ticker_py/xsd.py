"""XSD datatypes that mean numbers: their lexical forms and the exact values they write (``double``
and ``float`` too: the decimal number written, not rounded; ``INF`` and ``NaN`` are none), an
``int`` when integral, else a :class:`decimal.Decimal`.

>>> [number(s, XSD + t) for s, t in [("042", "int"), ("-0", "integer"), ("4.50", "decimal"), ("1.5E2", "double")]]
[42, 0, Decimal('4.5'), 150]
>>> invalid("200", XSD + "byte")
"'200' is not a valid xsd:byte (its range is -128..127)"
>>> from decimal import Decimal
>>> decimal_text(Decimal("-.50"))
'-0.5'
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from .limits import MAX_NUMBER_DIGITS, MAX_NUMBER_EXPONENT

if TYPE_CHECKING:  # decimal is imported where a literal writes a decimal, not at start-up
    from decimal import Decimal

__all__ = [
    "XSD",
    "XSD_INTEGER",
    "XSD_DECIMAL",
    "XSD_DOUBLE",
    "XSD_FLOAT",
    "XSD_BOOLEAN",
    "XSD_DATETIME",
    "INTEGER_RANGES",
    "NUMERIC",
    "invalid",
    "number",
    "decimal_text",
    "literal_number",
]

XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_INTEGER = XSD + "integer"
XSD_DECIMAL = XSD + "decimal"
XSD_DOUBLE = XSD + "double"
XSD_FLOAT = XSD + "float"
XSD_BOOLEAN = XSD + "boolean"
XSD_DATETIME = XSD + "dateTime"

#: the integer family: datatype -> (least, greatest) value (None: unbounded)
INTEGER_RANGES = {
    XSD + name: bounds
    for name, bounds in {
        "integer": (None, None),
        "nonPositiveInteger": (None, 0),
        "negativeInteger": (None, -1),
        "long": (-(2**63), 2**63 - 1),
        "int": (-(2**31), 2**31 - 1),
        "short": (-(2**15), 2**15 - 1),
        "byte": (-(2**7), 2**7 - 1),
        "nonNegativeInteger": (0, None),
        "positiveInteger": (1, None),
        "unsignedLong": (0, 2**64 - 1),
        "unsignedInt": (0, 2**32 - 1),
        "unsignedShort": (0, 2**16 - 1),
        "unsignedByte": (0, 2**8 - 1),
    }.items()
}

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_FLOATING = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?|[+-]?INF|NaN")

#: every datatype whose literals may write a number, with its lexical form
NUMERIC = {
    **dict.fromkeys(INTEGER_RANGES, _INTEGER),
    XSD_DECIMAL: _DECIMAL,
    XSD_DOUBLE: _FLOATING,
    XSD_FLOAT: _FLOATING,
}

#: the other checked datatypes: lexical forms only
_OTHER = {
    XSD_BOOLEAN: re.compile(r"true|false|1|0"),
    XSD_DATETIME: re.compile(
        r"-?[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?"
    ),
}


def _name(datatype: str) -> str:
    return datatype.replace(XSD, "xsd:")


def _digits(lexical: str) -> int:
    return sum(c.isdigit() for c in lexical)


def invalid(lexical: str, datatype: str) -> str | None:
    """Why ``lexical`` is not a valid literal of ``datatype``, or None (also for unknown datatypes); a
    number of more than :data:`~ticker_py.limits.MAX_NUMBER_DIGITS` digits (written out) is refused."""
    pattern = NUMERIC.get(datatype) or _OTHER.get(datatype)
    if pattern is None:
        return None
    match = pattern.fullmatch(lexical)
    if match is None:
        return f"'{lexical}' is not a valid {_name(datatype)}"
    if datatype not in NUMERIC:
        return None
    if _digits(lexical) > MAX_NUMBER_DIGITS:
        return f"'{lexical[:20]}...' has more than {MAX_NUMBER_DIGITS} digits, too many for an exact {_name(datatype)}"
    exponent = match.group(1) if datatype in (XSD_DOUBLE, XSD_FLOAT) else None
    if exponent is not None:
        if abs(int(exponent)) > MAX_NUMBER_EXPONENT:
            return f"'{lexical}': exponents beyond ±{MAX_NUMBER_EXPONENT} are too large for an exact {_name(datatype)}"
        from decimal import Decimal

        if _digits(format(Decimal(lexical), "f")) > MAX_NUMBER_DIGITS:
            return f"'{lexical}' has more than {MAX_NUMBER_DIGITS} digits written out, too many for an exact {_name(datatype)}"
    bounds = INTEGER_RANGES.get(datatype)
    if bounds is not None:
        value, (low, high) = int(lexical), bounds
        if (low is not None and value < low) or (high is not None and value > high):
            if low is None:
                span = f"at most {high}"
            elif high is None:
                span = f"at least {low}"
            else:
                span = f"its range is {low}..{high}"
            return f"'{lexical}' is not a valid {_name(datatype)} ({span})"
    return None


def number(lexical: str, datatype: str):
    """The number a valid literal writes (``int`` or ``Decimal``); None if it writes none
    (``INF``, ``NaN``, a datatype that is no number). Check :func:`invalid` first."""
    if datatype in INTEGER_RANGES:
        return int(lexical)
    if datatype not in NUMERIC or lexical.lstrip("+-") in ("INF", "NaN"):
        return None
    from decimal import Decimal

    value = Decimal(lexical)
    return int(value) if value == value.to_integral_value() else Decimal(decimal_text(value))


def decimal_text(value: Decimal) -> str:
    """The canonical lexical form of a decimal that is not an integer."""
    text = format(value, "f")  # always with a digit before the point
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


@lru_cache(maxsize=4096)
def _literal_number(lexical: str, datatype: str):
    if invalid(lexical, datatype) is not None:
        return None
    return number(lexical, datatype)


def literal_number(term):
    """The number a ground ``lit("L","T")`` term writes (``T`` a numeric XSD datatype, ``L`` a
    valid lexical form of it), else None."""
    if type(term) is not tuple or len(term) != 3 or term[0] != "lit":
        return None
    lexical, datatype = term[1], term[2]
    if type(lexical) is not str or type(datatype) is not str or not datatype.startswith('"' + XSD):
        return None
    if "\\" in lexical or "\\" in datatype:  # escapes: no numeric lexical form holds one
        return None
    return _literal_number(lexical[1:-1], datatype[1:-1])
