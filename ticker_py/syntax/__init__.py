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
import threading
from pathlib import Path

from .. import ast
from ..errors import Diagnostic, ProgramError
from ..process import paused_gc
from ..values import KEYWORDS
from . import directives, tokens
from .directives import Loaded, const_term, raise_problems
from .ground_atoms import parse_ground_atom, split_atoms

# lark (and the grammar's parse tables) are loaded when the first program is parsed

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

_GRAMMAR = Path(__file__).with_name("lars.lark")

#: what a syntax error calls each terminal: the grammar's literal ones by their text
TERMINAL_NAMES = {
    **{
        name: "'" + text.replace("\\\\", "\\") + "'"
        for name, text in re.findall(r'^([A-Z]+): "(.*)"$', _GRAMMAR.read_text(), re.M)
    },
    "CMP": "a comparison (=, !=, <, <=, >, >=)",
    "INT": "a number",
    "NAME": "a name",
    "VARIABLE": "a variable",
    "ANONYMOUS": "'_'",
    "STRING": "a string",
    "$END": "the end of the program",
    "PNAME_NS": "a prefix 'ex:'",
    "PNAME_LN": "a prefixed name",
    "IRIREF": "an IRI",
}


@functools.cache
def _parser():
    from lark import Lark

    from .transformer import ToAst

    grammar = _GRAMMAR.read_text() + tokens.lark_terminals()
    # cache=True: lark keeps the parse tables (slow to build) in a temporary file keyed by the
    # grammar's hash. The transformer builds the AST as the parser reduces: no parse tree
    return Lark(grammar, parser="lalr", lexer="contextual", maybe_placeholders=False, cache=True, transformer=ToAst())


#: one parse at a time: the parser's transformer holds the state of the file it reads
_PARSING = threading.Lock()


def _describe(expected) -> str:
    names = sorted({TERMINAL_NAMES.get(e, e.lower()) for e in expected})
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " or " + names[-1]


LARS_DIRECTIVES = "LARS has the directives #const, #show and #include"
CHOICE_NOTE = "a choice with default negation: 'a :- not na. na :- not a.' (a holds in one answer, not in the other)"
WEAK = "plain LARS has no weak constraints (':~')"
#: clingo's constructs that plain LARS has not, by the text at a syntax error: (pattern, where it
#: applies: "" anywhere, "head" or "body" of a rule, message, note); ``{0}`` is the text matched
_CLINGO_ONLY = [
    (
        r"#(?:count|sum\+?|min|max)\b",
        "",
        "plain LARS has no aggregates ('{0} {{ ... }}')",
        "compute the value with rules",
    ),
    (
        r"#(?:minimize|maximize|minimise|maximise)\b",
        "",
        "plain LARS has no optimization statements ('{0}')",
        "every answer stream is reported (--models 0 prints all): a constraint ':- body.' rules answers out",
    ),
    (
        r"#external\b",
        "",
        "plain LARS has no '#external' directive",
        "the stream is the program's input: a predicate in no rule head is read from it",
    ),
    (
        r"#(?:program|script|end|heuristic|project|edge|theory|defined)\b",
        "",
        "plain LARS has no '{0}' directive",
        LARS_DIRECTIVES,
    ),
    (r"#[a-z]\w*", "", "unknown directive '{0}'", LARS_DIRECTIVES),
    (r":~", "", WEAK, "a constraint ':- body.' rules answers out"),
    (
        r":(?!-)",
        "",
        "plain LARS has no conditional literals ('a : b')",
        "write the condition in a rule body: 'q :- a, b.'",
    ),
    (r"(?:-?[0-9]+\s*)?\{", "head", "plain LARS has no choice rules ('{{ a }}')", CHOICE_NOTE),
    (r"(?:-?[0-9]+\s*)?\{", "body", "plain LARS has no aggregates ('{{ ... }}')", "compute the count with rules"),
    (r"[;|]", "head", "plain LARS has no disjunction ('a {0} b')", CHOICE_NOTE),
    (r"[;|]", "body", "'{0}' between body literals", "LARS separates body literals with ','"),
]
_CLINGO_ONLY = [(re.compile(pattern), *rest) for pattern, *rest in _CLINGO_ONLY]
#: what follows a weak constraint's '.': its weight
_WEIGHT = re.compile(r"\s*\[[^\]\n]*\]")


def _syntax_error(err, readable: str, file: str) -> Diagnostic:
    """The located diagnostic for lark's ``UnexpectedInput`` in ``readable``: a string or comment that
    does not close, a clingo construct LARS has not, or the token found and those expected."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    position = getattr(err, "pos_in_stream", None)
    position = len(readable) if position is None else position
    bad = tokens.bad_token(readable, position + 1)
    if bad is not None:
        message, start, stop = bad
        notes = (tokens.ESCAPE_NOTE,) if "escape" in message else ()
        return Diagnostic(message, _location(readable, file, start, stop), notes)
    line, col = getattr(err, "line", 1) or 1, getattr(err, "column", 1) or 1
    if isinstance(err, UnexpectedEOF) or (isinstance(err, UnexpectedToken) and err.token.type == "$END"):
        lines = readable.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
        found, expected = "end of input", err.expected
    elif isinstance(err, UnexpectedToken):
        found, expected = f"'{err.token}'", err.expected
    elif isinstance(err, UnexpectedCharacters):
        found = f"'{readable[position]}'" if position < len(readable) else "end of input"
        expected = err.allowed or ()
    else:  # pragma: no cover - lark has no other kinds
        found, expected = "input", ()
    part = "body" if ":-" in readable[_statement(readable, position)[0] : position] else "head"
    for pattern, where, message, note in _CLINGO_ONLY:
        match = pattern.match(readable, position) if where in ("", part) else None
        if match:
            return Diagnostic(message.format(match.group()), _location(readable, file, *match.span()), (note,))
    width = len(found) - 2 if found.startswith("'") else 1
    loc = ast.Location(file, line, col, line, col + max(1, width))
    notes = (f"expected {_describe(expected)}",) if expected else ()
    if found.strip("'") in KEYWORDS:
        notes += (f"'{found.strip(chr(39))}' is a keyword: it cannot name a predicate, constant or function",)
    return Diagnostic(f"syntax error, unexpected {found}", loc, notes)


def _location(text: str, file: str, start: int, stop: int) -> ast.Location:
    """The location of ``text[start:stop]`` (on one line)."""
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    return ast.Location(file, line, column, line, column + max(1, stop - start))


def parse_program(text: str, file: str = "<string>", const: dict | None = None) -> ast.Program:
    """Parse LARS source text; raises :class:`ProgramError` with every problem found, located.
    ``#include`` files are read relative to ``file``; ``const`` (name -> int or term text)
    overrides the program's ``#const`` values."""
    loaded = load_source(text, file, const)
    raise_problems(loaded)
    return loaded.program


def load_source(text: str, file: str = "<string>", const: dict | None = None) -> Loaded:
    """:func:`parse_program`'s program with the problems it found (not raised) and the text of
    each file read."""
    overrides = {name: const_term(name, value, parse_term) for name, value in (const or {}).items()}
    with paused_gc():  # a parse makes no cycles: collecting meanwhile only costs time
        return directives.load_source(text, file, _unit, read_source, overrides)


def parse_term(text: str):
    """The term ``text`` holds, or None (a value of ``-c name=value``)."""
    try:
        program, found = _unit(f"#const c = {text}.", "<command line>")
    except ProgramError:
        return None
    if program.rules or found.problems or found.includes or found.shows is not None or len(found.consts) != 1:
        return None
    return found.consts[0].value


def _unit(text: str, file: str) -> tuple:
    """``(program, what the parse found)`` of one file (a :class:`.transformer.Found`). A syntax
    error is collected and its statement left out, so that every error is reported (as clingo)."""
    from lark.exceptions import UnexpectedInput

    parser = _parser()
    syntax_errors: list = []
    readable = text
    with _PARSING:
        while True:
            found = parser.options.transformer.begin(file)
            try:
                program = parser.parse(readable)
                break
            except UnexpectedInput as err:
                diagnostic = _syntax_error(err, readable, file)
                syntax_errors.append(diagnostic)
                skipped = _without_statement(readable, diagnostic)
                if skipped is None or skipped == readable or len(syntax_errors) >= directives.MAX_ERRORS:
                    raise ProgramError(syntax_errors, source=text) from None
                readable = skipped
            except ProgramError as err:
                raise ProgramError(err.diagnostics, source=text) from None
    found.problems += syntax_errors
    return program, found


#: where a statement may end: a '.' that is no part of '..', a string, a comment or an IRI
_STATEMENT_ENDS = re.compile(rf"{tokens.QUOTED}|{tokens.LINE_COMMENT}|{tokens.BLOCK_COMMENT}|{tokens.IRIREF}|\.\.|(\.)")


def _statement(text: str, position: int) -> tuple:
    """``(start, end)`` of the statement holding ``position`` (from the '.' before to its own)."""
    start, end = 0, len(text)
    for match in _STATEMENT_ENDS.finditer(text):
        if match.group(1) is None:
            continue
        if match.start() < position:
            start = match.end()
        else:
            end = match.end()
            break
    return start, end


def _without_statement(text: str, diagnostic: Diagnostic) -> str | None:
    """``text`` with the statement of ``diagnostic`` blanked (lines and columns kept), or None."""
    where = diagnostic.location
    lines = text.split("\n")
    start, end = _statement(text, sum(len(line) + 1 for line in lines[: where.line - 1]) + where.column - 1)
    if diagnostic.message == "unclosed comment":
        end = len(text)
    elif diagnostic.message == WEAK and (weight := _WEIGHT.match(text, end)):
        end = weight.end()
    if start >= end:
        return None
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def read_source(path, what: str = "program file") -> str:
    """A source file's text (UTF-8); else a UsageError located at the offending byte."""
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
    raise UsageError(Diagnostic(f"{what} is {message}", _location(text, str(path), bad, bad + 1)))


def _read_until_nul(path) -> bytes:
    """The bytes of ``path`` up to the block holding its first NUL byte (``/dev/zero`` is refused)."""
    blocks = []
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            blocks.append(block)
            if b"\0" in block:
                break
    return b"".join(blocks)


def parse_file(path, const: dict | None = None) -> ast.Program:
    """Parse a ``.lars`` file."""
    return parse_program(read_source(path), str(path), const)
