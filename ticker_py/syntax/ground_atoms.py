"""A fast hand-written parser for ground atoms in streams (``alpha(20), cache(1,3)``).

Atoms come back as tuples (see :mod:`ticker_py.values`). Errors raise
:class:`GroundSyntaxError` with a 0-based column; readers turn it into a located
:class:`~ticker_py.errors.StreamError`.

Two fast paths give exactly what the full parser gives: :func:`parse_ground_atom` reads a
name with constant and integer arguments (``p(a,-3)``) by one regular expression, and
:class:`AtomInterner` parses each distinct atom text once (readers see the same atoms at
many time points) and splits whole lines of such atoms with one regular expression. Anything
else (nested terms, strings, unusual spacing, errors) goes to the full parser.
"""

from __future__ import annotations

import functools
import re

from ..limits import MAX_TERM_DEPTH

__all__ = ["GroundSyntaxError", "parse_ground_atom", "parse_ground_term", "split_atoms", "AtomInterner", "names_apart"]


class _Lazy:
    """A regular expression compiled when first used: start-up compiles none of the parser's
    (a stream of constant atoms never needs most of them). Its methods, once looked up, are
    kept as attributes."""

    def __init__(self, pattern: str):
        self.pattern = pattern

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(re.compile(self.pattern), name)
        setattr(self, name, value)
        return value


_NAME = _Lazy(r"[a-z][A-Za-z0-9_']*")
_INT = _Lazy(r"-?[0-9]+")
_STRING = _Lazy(r'"(\\["\\\\n]|[^"\\\n])*"')  # clingo's escapes only: \" \\ \n
_BAD_ESCAPE = _Lazy(r'"(?:\\["\\\\n]|[^"\\\n])*(\\[^"\\\\n]?)')
_VARIABLE = _Lazy(r"_*[A-Z][A-Za-z0-9_']*")
_WS = _Lazy(r"[ \t\r\n]*")
_ARG = r"(?:[a-z][A-Za-z0-9_']*|-?[0-9]+)"
_SIMPLE = _Lazy(rf"([a-z][A-Za-z0-9_']*)(?:\(({_ARG}(?:,{_ARG})*)\))?")
#: an atom's text as the line splitter sees it: a name, maybe arguments without parentheses
#: or quotes inside (anything else makes the line go to the full parser)
_ATOM_TEXT = r"[a-z][A-Za-z0-9_']*(?:[ \t\r\n]*\([^()\"]*\))?"
_LINE = _Lazy(rf"[ \t\r\n]*(?:{_ATOM_TEXT}(?:[ \t\r\n]*[,;][ \t\r\n]*{_ATOM_TEXT})*)?[ \t\r\n]*")
_ATOM_TEXTS = _Lazy(_ATOM_TEXT)
_NUMBER_START = frozenset("-0123456789")
_FIRST = _Lazy(r"[ \t\r\n]*[a-z][A-Za-z0-9_']*(\([^()\"]*\))?")
_HAS_INT = _Lazy(r"[(,]-?[0-9]")
_HAS_RESERVED = _Lazy(r"\b(?:not|in|always|at)\b")


_SEPARATORS = frozenset([",", ";", ", ", "; ", " ,", " ;", " , ", " ; "])

#: the characters of names and constants; everything else in a line of atoms is punctuation
_TOKEN_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'"
_TOKEN_BYTES = _TOKEN_CHARS.encode()
#: name characters that cannot start a name become ``0``
_NAME_CLASSES = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'", b"0" * 38)
_OPEN_AS_COMMA = bytes.maketrans(b"(", b",")
_PARENS_AS_COMMAS = bytes.maketrans(b"()", b",,")


def _constant_atoms(text: str):
    """The atoms of ``text`` if it is exactly ``name(c1,...,ck), name(...), ...`` (see
    :func:`_constant_parts`), else None."""
    found = _constant_parts(text)
    return None if found is None else _zipped(*found)


def _zipped(parts: list, close: int, one_name: bool) -> tuple:
    """The atoms of :func:`_constant_parts`' names and arguments, ``close`` parts each."""
    return tuple(zip(*[iter(parts)] * close))


def _constant_parts(text: str):
    """``(parts, close, one_name)`` if ``text`` is exactly ``name(c1,...,ck), name(...), ...``: k >= 1
    constant arguments (no number, string or keyword), ``", "`` between the atoms, no other space;
    else None. ``parts`` are the names and arguments in order, ``close`` (k + 1) per atom;
    ``one_name``: all atoms have one predicate name, which is then one string object.

    Only bytes methods, each one pass over the line (as ASCII bytes): the punctuation left when
    the names are deleted must be ``(,...,)`` repeated with ``", "`` between, every separator must
    be exactly ``"), "`` (so each name stands in its place); deleting ``)`` and spaces and turning
    ``(`` into ``,`` leaves the names separated by single commas, each of which must start with a
    lower-case letter (no ``,`` followed by an empty name or by another name character, once those
    are classed as ``0``), and no name may be a keyword (looked for only if the line holds an ``n``,
    ``t`` or ``y``, one of which every keyword has).
    """
    if not text.isascii():
        return None
    line = text.encode()
    skeleton = line.translate(None, _TOKEN_BYTES)
    close = _unit(skeleton)
    if not close:
        return None
    unit, n = skeleton[:close], (len(skeleton) + 2) // (close + 2)
    if skeleton + b", " != (unit + b", ") * n or line[-1] != 41 or line.count(b"), ") != n - 1:  # 41: ")"
        return None
    return _names(line.translate(_OPEN_AS_COMMA, b") "), line, n, close)  # names between single commas


def _unit(skeleton: bytes) -> int:
    """The length of the first atom's punctuation ``(,...,)`` at the start of ``skeleton`` (0: none)."""
    close = skeleton.find(b")") + 1
    unit = skeleton[:close]
    return close if close >= 2 and unit[0] == 40 and unit.count(b",") == close - 2 else 0  # 40: "("


def _glued_parts(raw: bytes, n: int):
    """:func:`_constant_parts` of ``n`` table cells glued together (``p(a,b)p(c,d)``, the text of
    an Arrow string column), each of which the caller knows to be non-empty and to end with ``)``:
    so when the punctuation is ``n`` times one ``(,...,)``, each cell holds exactly one atom."""
    if not raw.isascii():
        return None
    skeleton = raw.translate(None, _TOKEN_BYTES)
    close = _unit(skeleton)
    if not close or skeleton != skeleton[:close] * n:
        return None
    return _names(raw.translate(_PARENS_AS_COMMAS)[:-1], raw, n, close)


def names_apart(raw: bytes, sep: bytes) -> bool:
    """Whether ``raw``, known to hold only name characters and ``sep`` bytes, is names
    ``[a-z][A-Za-z0-9_']*`` (keywords not looked for) with one ``sep`` between each two:
    ``names_apart(b"a,bC", b",")`` but not ``b"a,,b"``, ``b"a,B"`` or ``b"a,"``."""
    classes = raw.translate(_NAME_CLASSES)
    return classes[:1] >= b"a" and not classes.endswith(sep) and sep + b"0" not in classes and sep + sep not in classes


def _names(joined: bytes, line: bytes, n: int, close: int):
    """The end of :func:`_constant_parts`: ``joined``, the names and arguments of ``line``'s ``n``
    atoms between single commas, ``close`` per atom, split if each is a name that is no keyword."""
    if not names_apart(joined, b","):
        return None
    parts = joined.decode().split(",")
    if (b"n" in line or b"t" in line or b"y" in line) and not _RESERVED.isdisjoint(parts):
        return None
    names = parts[::close]
    one_name = names.count(names[0]) == n
    if one_name:
        parts[::close] = [names[0]] * n
    return parts, close, one_name


def _line_shape(parts: list, close: int, one_name: bool) -> tuple:
    """``(pairs, distinct)`` of the atoms of :func:`_constant_parts`: the set of their (name, tuple
    length) pairs, and whether no atom occurs twice (True if their first arguments differ; False:
    not known). The argument strings hashed here are hashed for the engine anyway."""
    n = len(parts) // close
    if one_name:
        pairs = frozenset([(parts[0], close)])
    else:
        pairs = frozenset([(name, close) for name in set(parts[::close])])
    return pairs, n == 1 or len(set(parts[1::close])) == n


@functools.lru_cache(maxsize=32)
def _constants(arity: int):
    """A regular expression for one atom with ``arity`` constant arguments, a group for each part."""
    name = "([a-z][A-Za-z0-9_']*)"
    return re.compile(name + (r"\(" + ",".join([name] * arity) + r"\)" if arity else ""))


def _split_constants(text: str, arity: int):
    """The atoms of ``text`` if all are ``name(c1,...,ck)`` with constants (no keyword), separated
    by a comma or semicolon with at most one space around; else None. One ``re.split``: the parts
    between the atoms are the separators, checked all at once."""
    parts = _constants(arity).split(text)
    step = arity + 2
    seps = parts[::step]
    if len(seps) < 2 or seps[0].strip(" \t\r\n") or seps[-1].strip(" \t\r\n") or not _SEPARATORS.issuperset(seps[1:-1]):
        return None
    if ("in" in text or "at" in text or "not" in text or "always" in text) and not _RESERVED.isdisjoint(parts):
        return None
    if arity == 0:
        return tuple(zip(parts[1::step]))
    return tuple(zip(*[parts[j::step] for j in range(1, arity + 2)]))


@functools.lru_cache(maxsize=32)
def _shape(arity: int) -> tuple:
    """Regular expressions for a line of atoms that all have ``arity`` constant or integer
    arguments: the whole line (fullmatch), and the atoms with one group per name and argument."""
    name, arg = "[a-z][A-Za-z0-9_']*", "[a-z][A-Za-z0-9_']*|-?[0-9]+"
    atom = name + (r"\(" + ",".join([f"(?:{arg})"] * arity) + r"\)" if arity else "")
    groups = f"({name})" + (r"\(" + ",".join([f"({arg})"] * arity) + r"\)" if arity else "")
    ws = "[ \t\r\n]*"
    line = re.compile(f"{ws}{atom}(?:{ws}[,;]{ws}{atom})*{ws}")
    return line, re.compile(groups)


_RESERVED = {"not", "in", "always", "at"}


class GroundSyntaxError(ValueError):
    """A ground atom did not parse; ``column`` is 0-based in the parsed text."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.message = message
        self.column = column


class _Reader:
    __slots__ = ("text", "pos", "depth")

    def __init__(self, text: str, pos: int = 0):
        self.text = text
        self.pos = pos
        self.depth = -1  # the atom's own argument list is not a term level

    def ws(self):
        self.pos = _WS.match(self.text, self.pos).end()

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def fail(self, what: str):
        found = self.peek()
        found = f"'{found}'" if found else "end of input"
        raise GroundSyntaxError(f"expected {what}, found {found}", self.pos)

    def term(self):
        self.ws()
        text, pos = self.text, self.pos
        m = _INT.match(text, pos)
        if m:
            self.pos = m.end()
            return int(m.group())
        m = _STRING.match(text, pos)
        if m:
            self.pos = m.end()
            return m.group()
        bad = _BAD_ESCAPE.match(text, pos)
        if bad and bad.group(1):
            raise GroundSyntaxError(
                f"unknown escape '{bad.group(1)}' in a string (strings know the escapes \\n, \\\\ and \\\")",
                bad.start(1),
            )
        m = _NAME.match(text, pos)
        if m:
            if m.group() in _RESERVED:
                raise GroundSyntaxError(f"'{m.group()}' is a keyword, not a constant", pos)
            self.pos = m.end()
            self.ws()
            if self.peek() == "(":
                return (m.group(), *self.args())
            return m.group()
        if _VARIABLE.match(text, pos):
            raise GroundSyntaxError(
                f"variable '{_VARIABLE.match(text, pos).group()}' in a stream atom (stream atoms must be ground)", pos
            )
        self.fail("a term (number, constant, string or function term)")

    def args(self) -> list:
        self.depth += 1
        if self.depth > MAX_TERM_DEPTH:
            raise GroundSyntaxError(f"term nested more than {MAX_TERM_DEPTH} levels deep", self.pos)
        self.pos += 1  # "("
        out = [self.term()]
        self.ws()
        while self.peek() == ",":
            self.pos += 1
            out.append(self.term())
            self.ws()
        if self.peek() != ")":
            self.fail("',' or ')'")
        self.pos += 1
        self.depth -= 1
        return out

    def atom(self) -> tuple:
        self.ws()
        m = _NAME.match(self.text, self.pos)
        if not m:
            if _VARIABLE.match(self.text, self.pos):
                self.fail("a predicate name (lower case)")
            self.fail("an atom")
        if m.group() in _RESERVED:
            raise GroundSyntaxError(f"'{m.group()}' is a keyword, not a predicate", self.pos)
        self.pos = m.end()
        self.ws()
        if self.peek() == "(":
            return (m.group(), *self.args())
        return (m.group(),)


def _simple(text: str):
    """``text`` as an atom if it is a name with constant or integer arguments, else None."""
    m = _SIMPLE.fullmatch(text)
    if m is None:
        return None
    name, inner = m.groups()
    if name in _RESERVED:
        return None
    if inner is None:
        return (name,)
    parts = inner.split(",")
    if not _RESERVED.isdisjoint(parts):
        return None
    return (name, *[int(p) if p[0] in _NUMBER_START else p for p in parts])


def parse_ground_atom(text: str) -> tuple:
    """Parse one ground atom: ``parse_ground_atom("p(a,1)") == ("p", "a", 1)``."""
    fast = _simple(text)
    return fast if fast is not None else parse_full(text)


def parse_full(text: str) -> tuple:
    """:func:`parse_ground_atom` by the full parser alone (the fast paths' reference)."""
    r = _Reader(text)
    atom = r.atom()
    r.ws()
    if r.pos != len(text):
        r.fail("the end of the atom")
    return atom


def parse_ground_term(text: str):
    """Parse one ground term as it stands for an atom's argument (its nesting counted from
    there): ``parse_ground_term("f(1,\"x\")") == ("f", 1, '"x"')``."""
    r = _Reader(text)
    r.depth = 0
    term = r.term()
    r.ws()
    if r.pos != len(text):
        r.fail("the end of the term")
    return term


def split_atoms(text: str, start: int = 0) -> list:
    """Parse atoms separated by ``,`` or ``;`` at top level; returns ``[(column, atom), ...]``."""
    r = _Reader(text, start)
    out = []
    r.ws()
    if r.pos >= len(text):
        return out
    while True:
        r.ws()
        col = r.pos
        out.append((col, r.atom()))
        r.ws()
        ch = r.peek()
        if ch == "":
            return out
        if ch not in ",;":
            r.fail("',' or ';' between atoms")
        r.pos += 1


class AtomInterner:
    """Parses each distinct atom text once and returns the same tuple for every occurrence.

    A line whose atoms all have one shape (a name and k constant or integer arguments) is
    split by one regular expression that returns the atoms' parts directly.

    After :meth:`atoms` (and :meth:`each`), ``shape`` is ``(pairs, distinct)`` of the line's atoms when the string-method
    path split it (the set of their (name, tuple length) pairs; whether no atom occurs twice, False if
    not known), else None.

    ``limit`` bounds the cache: when it holds that many texts it starts afresh. Lines are first
    looked up text by text; when, after ``probe`` lookups, fewer than a quarter were found (atoms
    that never recur, like fresh sensor readings), lines go straight to the regular expression.
    """

    def __init__(self, limit: int = 1 << 16, probe: int = 1 << 14):
        self.cache: dict = {}
        self.limit = limit
        self.probe = probe
        self.lookups = self.hits = 0
        self.recurring = True
        self.line, self.line_atoms = None, ()  # the previous line's atom text and atoms
        self.shape = None  # (pairs, distinct) of the previous line's atoms, if known (_line_shape)

    def atom(self, text: str) -> tuple:
        """``parse_ground_atom(text)``, cached."""
        atom = self.cache.get(text)
        if atom is None:
            atom = self._miss(text)
        return atom

    def _miss(self, text: str) -> tuple:
        atom = parse_ground_atom(text)
        if len(self.cache) >= self.limit:
            self.cache.clear()
        self.cache[text] = atom
        return atom

    def _numbers(self, parts: tuple) -> tuple:
        atom = tuple([int(p) if p[0] in _NUMBER_START else p for p in parts])
        if len(self.cache) >= self.limit:
            self.cache.clear()
        self.cache[parts] = atom
        return atom

    def uniform(self, text: str, start: int = 0):
        """The atoms of ``text[start:]`` if they all have one shape (a name and k constant or
        integer arguments; no keyword anywhere), else None: one regular expression returns
        their parts."""
        first = _FIRST.match(text, start)
        if first is None:
            return None
        inner = first.group(1)
        arity = inner.count(",") + 1 if inner is not None else 0
        found = _split_constants(text[start:] if start else text, arity)
        if found is not None:
            return found
        line, groups = _shape(arity)
        if line.fullmatch(text, start) is None or _HAS_RESERVED.search(text, start) is not None:
            return None
        found = groups.findall(text, start)  # tuples of strings: the atoms if no numbers
        if arity == 0:
            return tuple([(name,) for name in found])
        if _HAS_INT.search(text, start) is None:
            return tuple(found)
        get = self.cache.get
        return tuple([get(x) or self._numbers(x) for x in found])

    def cells(self, texts: list):
        """One atom for each of ``texts`` (table cells) if every text is exactly one atom and all
        have one shape (a name and k constant or integer arguments), else None. The texts are
        joined and split at once; a text of two atoms or none makes the counts differ."""
        joined = ", ".join(texts)
        self.shape = None
        found = self._constant(joined)
        if found is None:
            found = self.uniform(joined)
        if found is not None and len(found) == len(texts):
            return found
        self.shape = None
        return None

    def each(self, texts: list) -> tuple:
        """One atom for each of ``texts``: what :meth:`atom` gives text by text, the first bad
        text raising its GroundSyntaxError (TypeError: a text that is not a string). Texts are
        looked up whole while atoms recur, and split at once (:meth:`cells`) when all have one
        shape; :attr:`shape` is then known as for a line."""
        self.shape = None
        if self.recurring:
            found = list(map(self.cache.get, texts))
            self._count(len(texts), found)
            if None not in found:
                return tuple(found)
        atoms = self.cells(texts) if texts else ()
        if atoms is not None:
            if self.recurring:
                self._remember(texts, atoms)
            return atoms
        get = self.cache.get
        return tuple([get(x) or self.atom(x) for x in texts])

    def atoms(self, text: str, start: int = 0) -> tuple:
        """The atoms of ``text[start:]`` separated by ``,`` or ``;``: what :func:`split_atoms` gives.

        A line with the same atom text as the line before gives the same tuple again (a stream
        that repeats its time points costs one comparison per line)."""
        rest = text[start:].strip(" \t\r\n")
        if rest == self.line:
            return self.line_atoms
        atoms = self._atoms(text, start, rest)
        self.line, self.line_atoms = rest, atoms
        return atoms

    def _atoms(self, text: str, start: int, rest: str) -> tuple:
        self.shape = None
        if self.recurring:
            # the parts between ", " are looked up whole: if every one is a known atom text,
            # the line is exactly those atoms (a known text parses completely on its own)
            texts = rest.split(", ")
            found = list(map(self.cache.get, texts))
            self._count(len(texts), found)
            if None not in found:
                return tuple(found)
            atoms = self._constant(rest)
            if atoms is not None:
                self._remember(texts, atoms)
                return atoms
        else:
            atoms = self._constant(rest)
            if atoms is not None:
                return atoms
            found = self.uniform(text, start)
            if found is not None:
                return found
        return self._general(text, start)

    def glued(self, raw: bytes, n: int):
        """The atoms of ``n`` table cells glued together as ``raw`` (each non-empty and ending with
        ``)``) if each is one atom with constant arguments, all of one arity, else None; :attr:`shape`
        is then theirs."""
        return self._shaped(_glued_parts(raw, n))

    def _constant(self, rest: str):
        """:func:`_constant_atoms` of ``rest``, its shape kept in :attr:`shape`."""
        return self._shaped(_constant_parts(rest))

    def _shaped(self, found):
        """The atoms of ``(parts, close, one_name)`` (None: none), their shape kept in :attr:`shape`."""
        if found is None:
            self.shape = None
            return None
        self.shape = _line_shape(*found)
        return _zipped(*found)

    def _remember(self, texts: list, atoms: tuple) -> None:
        cache = self.cache
        if len(cache) + len(atoms) > self.limit:
            cache.clear()
        cache.update(zip(texts, atoms))

    def _general(self, text: str, start: int) -> tuple:
        """:meth:`atoms` for lines the string-method path does not take."""
        if _LINE.fullmatch(text, start) is None:
            return tuple(a for _, a in split_atoms(text, start))
        texts = _ATOM_TEXTS.findall(text, start)
        get = self.cache.get
        atoms = [get(x) for x in texts]
        if None not in atoms:
            return tuple(atoms)
        found = self.uniform(text, start) if self.recurring else None
        if found is not None:
            self._remember(texts, found)
            return found
        try:
            return tuple([get(x) or self._miss(x) for x in texts])
        except GroundSyntaxError:  # report it as the full parser does, located in the line
            return tuple(a for _, a in split_atoms(text, start))

    def _count(self, lookups: int, atoms: list) -> None:
        self.lookups += lookups
        self.hits += lookups - atoms.count(None)
        if self.lookups >= self.probe:
            self.recurring = self.hits * 4 >= self.lookups
            self.lookups = self.hits = 0
