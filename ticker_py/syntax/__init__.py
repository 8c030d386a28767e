"""Parsing LARS programs and ground atoms.

>>> from ticker_py.syntax import parse_program
>>> print(parse_program("lfu :- high always [20]. high at T :- alpha(V) at T in [20 #], V >= 18."))
lfu :- high always [20].
high at T :- alpha(V) at T in [20 #], V >= 18.
<BLANKLINE>
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from .. import accelerators, ast
from ..errors import Diagnostic, ProgramError, TickerError
from ..limits import MAX_TERM_DEPTH
from . import directives
from .directives import Loaded, const_term, raise_problems
from .fast import parse_fast, paused_gc
from .ground_atoms import parse_ground_atom, split_atoms

# lark (and its ``regex`` module) is imported only when the grammar parser is needed: for a
# program the fast parser does not accept, and so for every syntax error

__all__ = [
    "parse_program",
    "parse_file",
    "load_source",
    "parse_term",
    "read_source",
    "parse_ground_atom",
    "split_atoms",
    "TERMINAL_NAMES",
    "KEYWORDS",
]

KEYWORDS = frozenset({"not", "in", "at", "always"})

TERMINAL_NAMES = {
    "IF": "':-'",
    "DOT": "'.'",
    "DOTS": "'..'",
    "COMMA": "','",
    "LPAR": "'('",
    "RPAR": "')'",
    "LBRACK": "'['",
    "RBRACK": "']'",
    "NOT": "'not'",
    "IN": "'in'",
    "ALWAYS": "'always'",
    "AT": "'at'",
    "SEC": "'sec'",
    "MS": "'ms'",
    "MIN": "'min'",
    "HOUR": "'h'",
    "HASH": "'#'",
    "CMP": "a comparison (=, !=, <, <=, >, >=)",
    "PLUS": "'+'",
    "MINUS": "'-'",
    "STAR": "'*'",
    "SLASH": "'/'",
    "BACKSLASH": "'\\'",
    "INT": "a number",
    "NAME": "a name",
    "VARIABLE": "a variable",
    "ANONYMOUS": "'_'",
    "STRING": "a string",
    "$END": "the end of the program",
    "PREFIX": "'@prefix'",
    "PNAME_NS": "a prefix 'ex:'",
    "PNAME_LN": "a prefixed name",
    "IRIREF": "an IRI",
    "CONST": "'#const'",
    "SHOW": "'#show'",
    "INCLUDE": "'#include'",
    "COLON": "':'",
}


@functools.cache
def _parser():
    from lark import Lark

    grammar = (Path(__file__).with_name("lars.lark")).read_text()
    # cache=True: lark keeps the parse tables in a temporary file keyed by the grammar's hash
    # (start-up: about 4 ms instead of 60 ms to build them)
    return Lark(
        grammar, parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=False, cache=True
    )


def _describe(expected) -> str:
    names = sorted({TERMINAL_NAMES.get(e, e.lower()) for e in expected})
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " or " + names[-1]


def _syntax_error(err, text: str, file: str) -> ProgramError:
    """The located error for lark's ``UnexpectedInput``."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

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
    if found.strip("'") in KEYWORDS:
        notes += (f"'{found.strip(chr(39))}' is a keyword: it cannot name a predicate, constant or function",)
    return ProgramError(Diagnostic(f"syntax error, unexpected {found}", loc, notes), source=text)


def parse_program(text: str, file: str = "<string>", const: dict | None = None) -> ast.Program:
    """Parse LARS source text; raises :class:`ProgramError` with located diagnostics (every
    problem found, in source order).

    ``#include`` files are read relative to ``file``; ``const`` (name -> int or term text)
    overrides the program's ``#const`` values. The fast parser (:mod:`.fast`) reads what it
    fully understands; everything else, and every error, goes through the lark grammar, which
    gives the same program and the located errors.
    """
    loaded = load_source(text, file, const)
    raise_problems(loaded)
    return loaded.program


def load_source(text: str, file: str = "<string>", const: dict | None = None) -> Loaded:
    """:func:`parse_program`'s program with the problems it found (not raised) and the text of
    each file read: what :func:`ticker_py.api.load_program` reports together with the analysis'."""
    overrides = {name: const_term(name, value, parse_term) for name, value in (const or {}).items()}
    with paused_gc():  # a parse makes no cycles: collecting meanwhile only costs time
        return directives.load_source(text, file, _unit, read_source, overrides)


def parse_lark(text: str, file: str = "<string>") -> ast.Program:
    """:func:`parse_program` through the lark grammar alone."""
    loaded = directives.load_source(text, file, _lark_unit, read_source)
    raise_problems(loaded)
    return loaded.program


def parse_term(text: str):
    """The term ``text`` holds, or None (a value of ``-c name=value``)."""
    try:
        program, state = _lark_unit(f"#const c = {text}.", "<command line>")
    except ProgramError:
        return None
    if program.rules or state.problems or state.includes or state.shows is not None or len(state.consts) != 1:
        return None
    return state.consts[0].value


def _unit(text: str, file: str) -> tuple:
    """``(program, transformer state)`` of one file; the state is None from the fast parser."""
    program = accelerators.ENABLED and parse_fast(text, file)
    return (program, None) if program else _lark_unit(text, file)


def _lark_unit(text: str, file: str) -> tuple:
    """``(program, transformer)`` of one file through the lark grammar. A syntax error is collected
    (in ``transformer.problems``) and the statement holding it left out, so that the rest is read
    and every error reported (as clingo does), at most MAX_ERRORS syntax errors."""
    from lark.exceptions import UnexpectedInput, VisitError

    from .transformer import ToAst

    syntax_errors: list = []
    readable = text
    while True:
        try:
            tree = _parser().parse(readable)
            break
        except UnexpectedInput as err:
            syntax_errors += _syntax_error(err, text, file).diagnostics  # located in the text as written
            position = getattr(err, "pos_in_stream", None)
            skipped = None if position is None else _without_statement(readable, position)
            if skipped is None or skipped == readable or len(syntax_errors) >= directives.MAX_ERRORS:
                raise ProgramError(syntax_errors) from None
            readable = skipped
        except RecursionError:
            raise _too_deep(text, file) from None
    _check_depth(tree, text, file)
    to_ast = ToAst(file)
    to_ast.problems += syntax_errors
    try:
        return to_ast.transform(tree), to_ast
    except VisitError as err:
        if isinstance(err.orig_exc, TickerError):
            raise ProgramError(err.orig_exc.diagnostics, source=text) from None
        if isinstance(err.orig_exc, RecursionError):
            raise _too_deep(text, file) from None
        raise
    except RecursionError:
        raise _too_deep(text, file) from None


#: where a statement may end: a '.' that is no part of '..', a string, a comment or an IRI
_STATEMENT_ENDS = re.compile(r'"(?:\\.|[^"\\\n])*"|%[^\n]*|//[^\n]*|/\*[\s\S]*?\*/|<[^<>"{}|^`\\\x00-\x20]*>|\.\.|(\.)')


def _without_statement(text: str, position: int) -> str | None:
    """``text`` with the statement around ``position`` (from the end of the one before to its own
    '.', or the end of the text) blanked, lines and columns kept; None if there is nothing to blank."""
    start, end = 0, len(text)
    for match in _STATEMENT_ENDS.finditer(text):
        if match.group(1) is None:
            continue
        if match.start() < position:
            start = match.end()
        else:
            end = match.end()
            break
    if start >= end:
        return None
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def _too_deep(text: str, file: str) -> ProgramError:
    """The error for a term nested beyond Python's recursion limit, at its deepest parenthesis."""
    depth = deepest = where = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth > deepest:
            deepest, where = depth, i
    line = text.count("\n", 0, where) + 1
    column = where - (text.rfind("\n", 0, where) + 1) + 1
    return ProgramError(
        Diagnostic(
            f"term nested too deeply ({deepest} parentheses)", ast.Location(file, line, column, line, column + 1)
        ),
        source=text,
    )


def read_source(path, what: str = "program file") -> str:
    """A source file's text (UTF-8); a missing, unreadable, binary or non-UTF-8 file is a
    UsageError located at the offending byte."""
    from ..errors import UsageError, file_error

    try:
        data = _read_until_nul(path)
    except OSError as err:
        raise file_error(err, what, path) from None
    try:
        text, bad, message = data.decode("utf-8"), -1, ""
    except UnicodeDecodeError as err:
        text = data[: err.start].decode("utf-8")
        bad, message = len(text), f"not UTF-8 text (byte 0x{data[err.start]:02x})"
    if "\0" in text:  # the first problem is reported
        bad, message = text.index("\0"), "a binary file (a NUL byte), not program text"
    if bad < 0:
        return text
    before = text[:bad]
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    raise UsageError(Diagnostic(f"{what} is {message}", ast.Location(str(path), line, column, line, column + 1)))


def _read_until_nul(path) -> bytes:
    """The bytes of ``path``, but no further than the block holding its first NUL byte (so that
    a binary file, or an endless one such as ``/dev/zero``, is refused without reading it all)."""
    blocks = []
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            blocks.append(block)
            if b"\0" in block:
                break
    return b"".join(blocks)


#: parse-tree nodes that nest a term one level deeper
_NESTING = {"function", "primary", "binop", "neg", "interval"}


def _check_depth(tree, text: str, file: str) -> None:
    """Refuse terms nested deeper than MAX_TERM_DEPTH (before the recursive transformer sees them)."""
    from lark import Tree

    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if node.data in _NESTING:
            depth += 1
            if depth > MAX_TERM_DEPTH:
                m = node.meta
                loc = ast.Location(file, m.line, m.column, m.end_line, m.end_column)
                raise ProgramError(
                    Diagnostic(
                        f"term nested more than {MAX_TERM_DEPTH} levels deep",
                        loc,
                        ("function terms, parentheses and operators each add a level",),
                    ),
                    source=text,
                )
        stack.extend((child, depth) for child in node.children if isinstance(child, Tree))


def parse_file(path, const: dict | None = None) -> ast.Program:
    """Parse a ``.lars`` file."""
    return parse_program(read_source(path), str(path), const)
