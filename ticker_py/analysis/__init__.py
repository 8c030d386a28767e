"""Static analysis of LARS programs: roles, safety, windows, dependencies and fragment.

>>> from ticker_py.syntax import parse_program
>>> a = analyse(parse_program("a :- not b. b :- not a. c :- p in [3]."))
>>> a.fragment, sorted(a.intensional), a.lookback
('general', ['a', 'b', 'c'], 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .. import ast
from ..errors import Diagnostic, ProgramError, with_excerpt
from ..process import paused_gc
from ..syntax.directives import capped, in_source_order
from .arities import internal_names, named
from .graph import check_box_cycles, dependency_edges, stratify
from .roles import background_atoms
from .safety import check_safety
from .terms import has_subterm, rule_terms, without_iris

__all__ = ["Analysis", "analyse", "window_points", "POSITIVE", "STRATIFIED", "GENERAL"]

POSITIVE, STRATIFIED, GENERAL = "positive", "stratified", "general"


@dataclass(frozen=True)
class Analysis:
    """What the encoders and engines need to know about a checked program.

    ``window_sizes``: each window's size in time points (units converted with the clock) or atoms;
    ``lookback``: how many time points before t a time window or @-atom reaches (None: an @-atom
    without window); ``tuple_lookback``: the largest tuple window (0: none); ``choice``, ``upper``
    and ``lower``: :func:`.graph.stratify`; ``renamed``: :mod:`.arities`.
    """

    program: ast.Program
    signatures: dict
    intensional: frozenset
    extensional: frozenset
    background: tuple
    strata: tuple
    fragment: str
    negative_cycle: tuple
    has_constraints: bool
    window_sizes: dict
    lookback: int | None
    tuple_lookback: int
    clock_ms: int
    choice: frozenset
    lower: frozenset
    upper: frozenset
    interval_rules: tuple = ()
    #: the internal names of a name used with several arities (``p'2``) -> that name (``p``)
    renamed: dict = field(default_factory=dict)

    def size(self, window: ast.Window) -> int:
        return self.window_sizes[window]

    def named(self, item):
        """``item`` (a text or a :class:`Diagnostic`) with the program's names for the internal
        ones (``p'2(a)`` is ``p(a)``)."""
        return named(self.renamed, item) if self.renamed else item

    @property
    def predicates(self) -> set:
        """The ``(name, arity)`` predicates of the program as its users write them (``p/1`` and
        ``p/2``, not the internal ``p'2``)."""
        rename = self.renamed.get
        return {(rename(name, name), arity) for name, arity in self.signatures.items()}

    @property
    def engines(self) -> tuple:
        """Engines that can run this program, in the order ``--engine auto`` tries them."""
        native = self.fragment in (POSITIVE, STRATIFIED) and not self.has_constraints and not self.interval_rules
        solvers = ("incremental", "incremental-pure", "clingo")
        return ("native", *solvers) if native else solvers


def window_points(window: ast.Window, clock_ms: int = 1000) -> int:
    """A window's size in time points (or atoms for ``[n #]``); raises on a bad unit."""
    if window.unit is None or window.unit == "#":
        return window.size
    total = window.size * ast.UNITS[window.unit]
    if total % clock_ms:
        raise ProgramError.at(
            window.location,
            f"window {window} is not a whole number of time points",
            f"one time point lasts {clock_ms} ms (clock=, --clock)",
        )
    return total // clock_ms


def analyse(
    program: ast.Program, clock_ms: int = 1000, source: str | dict | None = None, problems: Sequence = ()
) -> Analysis:
    """Check a program and compute its analysis; raises :class:`ProgramError` listing every problem
    in source order, ``problems`` (the parser's, :func:`ticker_py.syntax.load_source`) among them.
    ``source``: the program's text, or a map from file names to texts (for the excerpts)."""
    sources = source if isinstance(source, dict) else {program.file: source} if source is not None else {}
    with paused_gc():  # it builds no cycles: see paused_gc
        return _analyse(program, clock_ms, sources, problems)


def _report(diags: list, sources: dict, problems: Sequence, renamed: dict) -> ProgramError:
    """One error with every diagnostic, excerpted, in source order and in the program's names."""
    if renamed:
        diags = [named(renamed, d) for d in diags]
    diags = [
        d if d.location is None or d.location.file not in sources else with_excerpt(d, sources[d.location.file])
        for d in diags
    ]
    return ProgramError(capped(in_source_order([*problems, *diags], sources)))


def _analyse(
    program: ast.Program, clock_ms: int, sources: dict, problems: Sequence, renamed: dict | None = None
) -> Analysis:
    rules: list = []  # without IRIs
    interval_rules: list = []  # the rules with an interval (the native engine needs none)
    sigs: dict = {}
    facts: list = []  # the ground ones: their atoms are the background
    heads: set = set()
    diags: list = []  # safety and windows, rule by rule
    tuple_windows: list = []  # their extended atoms, checked once the heads are known
    sizes: dict = {}
    lookback: int | None = 0
    tuple_lookback = 0
    has_negation = has_constraints = mixed_arity = False
    comparison, at = ast.Comparison, ast.AT
    # one walk over the rules: signatures, intensional predicates, safety, windows, negation, constraints
    for rule in program.rules:
        if has_subterm(rule_terms(rule), (ast.Iri, ast.Interval)):  # seldom: the rule is looked at again
            rule = without_iris(rule)
            if not rule.is_fact and has_subterm(rule_terms(rule), ast.Interval):
                interval_rules.append(rule)
        rules.append(rule)
        body, head = rule.body, rule.head
        if head is None:
            has_constraints = True
        else:
            atom = head.atom
            arity = len(atom.args)
            mixed_arity |= sigs.setdefault(atom.predicate, arity) != arity
            if not body and head.time is None:  # a fact
                if check_safety(rule, diags):
                    facts.append(rule)
                continue
            heads.add(atom.predicate)
        check_safety(rule, diags)
        for lit in body:
            ext = lit.element
            if lit.negated:
                has_negation = True
            if type(ext) is comparison:
                continue
            atom = ext.atom
            arity = len(atom.args)
            mixed_arity |= sigs.setdefault(atom.predicate, arity) != arity
            window = ext.window
            if window is None:
                if ext.modality == at:
                    lookback = None
                continue
            n = sizes.get(window)  # equal windows have equal sizes: computed once
            if n is None:
                try:
                    n = sizes[window] = window_points(window, clock_ms)
                except ProgramError as err:
                    diags.extend(err.diagnostics)
                    continue
            if window.unit == "#":
                tuple_lookback = max(tuple_lookback, n)
                tuple_windows.append(ext)
            elif lookback is not None and n > lookback:
                lookback = n
    if any(a is not b for a, b in zip(rules, program.rules)):
        program = program.replace(rules=tuple(rules))
    if mixed_arity:
        # p/1 and p/2 are two predicates: every check below keys by name, so each runs on a name
        # per arity (analysis.arities), its messages given back in the program's names
        internal, renamed = internal_names(program)
        return _analyse(internal, clock_ms, sources, problems, renamed)
    intensional = frozenset(heads)
    diags += [  # reported in source order
        Diagnostic(
            f"tuple window over intensional predicate '{ext.atom.predicate}/{len(ext.atom.args)}'",
            ext.location,
            ("a tuple window counts input atoms: only extensional (stream) predicates may appear in it",),
        )
        for ext in tuple_windows
        if ext.atom.predicate in intensional
    ]
    edges = dependency_edges(program, intensional)
    check_box_cycles(intensional, edges, sigs, diags)
    strata, bad, choice, lower, upper = stratify(intensional, edges)
    background = background_atoms(facts, diags)  # last: the values of the facts
    if diags or problems:
        raise _report(diags, sources, problems, renamed)
    fragment = GENERAL if bad else STRATIFIED if has_negation or has_constraints else POSITIVE
    return Analysis(
        program=program,
        signatures=sigs,
        intensional=intensional,
        extensional=frozenset(sigs) - intensional,
        background=background,
        strata=tuple(strata),
        fragment=fragment,
        negative_cycle=tuple(bad),
        has_constraints=has_constraints,
        window_sizes=sizes,
        lookback=lookback,
        tuple_lookback=tuple_lookback,
        clock_ms=clock_ms,
        choice=choice,
        lower=lower,
        upper=upper,
        interval_rules=tuple(interval_rules),
        renamed=renamed or {},
    )
