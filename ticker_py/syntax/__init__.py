"""Parsing LARS programs and ground atoms.

>>> from ticker_py.syntax import parse_program
>>> print(parse_program("lfu :- high always [20]. high at T :- alpha(V) at T in [20 #], V >= 18."))
lfu :- high always [20].
high at T :- alpha(V) at T in [20 #], V >= 18.
<BLANKLINE>
"""

from __future__ import annotations

import functools
from pathlib import Path

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from .. import ast
from ..errors import Diagnostic, ProgramError, TickerError
from .ground_atoms import parse_ground_atom, split_atoms
from .transformer import ToAst

__all__ = ["parse_program", "parse_file", "parse_ground_atom", "split_atoms", "TERMINAL_NAMES"]

TERMINAL_NAMES = {
    "IF": "':-'", "DOT": "'.'", "DOTS": "'..'", "COMMA": "','", "LPAR": "'('", "RPAR": "')'",
    "LBRACK": "'['", "RBRACK": "']'", "NOT": "'not'", "IN": "'in'", "ALWAYS": "'always'",
    "AT": "'at'", "SEC": "'sec'", "MS": "'ms'", "MIN": "'min'", "HOUR": "'h'", "HASH": "'#'",
    "CMP": "a comparison (=, !=, <, <=, >, >=)", "PLUS": "'+'", "MINUS": "'-'", "STAR": "'*'",
    "SLASH": "'/'", "BACKSLASH": "'\\'", "INT": "a number", "NAME": "a name",
    "VARIABLE": "a variable", "STRING": "a string", "$END": "the end of the program",
    "PREFIX": "'@prefix'", "PNAME_NS": "a prefix 'ex:'", "PNAME_LN": "a prefixed name", "IRIREF": "an IRI",
}


@functools.lru_cache(maxsize=None)
def _parser() -> Lark:
    grammar = (Path(__file__).with_name("lars.lark")).read_text()
    return Lark(grammar, parser="lalr", lexer="contextual", propagate_positions=True,
                maybe_placeholders=False)


def _describe(expected) -> str:
    names = sorted({TERMINAL_NAMES.get(e, e.lower()) for e in expected})
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " or " + names[-1]


def _syntax_error(err: UnexpectedInput, text: str, file: str) -> ProgramError:
    line, col = getattr(err, "line", 1) or 1, getattr(err, "column", 1) or 1
    if isinstance(err, UnexpectedToken) and err.token.type == "$END":
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
        found = "end of input"
        expected = err.expected
    elif isinstance(err, UnexpectedEOF):
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
        found, expected = "end of input", err.expected
    elif isinstance(err, UnexpectedToken):
        found, expected = f"'{err.token}'", err.expected
    elif isinstance(err, UnexpectedCharacters):
        found = f"'{text[err.pos_in_stream]}'" if err.pos_in_stream < len(text) else "end of input"
        expected = err.allowed or ()
    else:  # pragma: no cover - lark has no other kinds
        found, expected = "input", ()
    width = len(found) - 2 if found.startswith("'") else 1
    loc = ast.Location(file, line, col, line, col + max(1, width))
    notes = (f"expected {_describe(expected)}",) if expected else ()
    return ProgramError(Diagnostic(f"syntax error, unexpected {found}", loc, notes), source=text)


def parse_program(text: str, file: str = "<string>") -> ast.Program:
    """Parse LARS source text; raises :class:`ProgramError` with located diagnostics."""
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as err:
        raise _syntax_error(err, text, file) from None
    try:
        return ToAst(file).transform(tree)
    except VisitError as err:
        if isinstance(err.orig_exc, TickerError):
            raise ProgramError(err.orig_exc.diagnostics, source=text) from None
        raise


def parse_file(path) -> ast.Program:
    """Parse a ``.lars`` file."""
    from ..errors import UsageError

    p = Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise UsageError(Diagnostic(f"program file '{path}' does not exist")) from None
    except OSError as err:
        raise UsageError(Diagnostic(f"cannot read program file '{path}': {err.strerror}")) from None
    return parse_program(text, str(path))
