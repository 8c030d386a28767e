"""Semantics profiles: the dimensions in which published stream reasoners differ.

A :class:`Semantics` sets seven knobs; ``Semantics()`` is the project's own semantics
(docs/semantics.md). :data:`PROFILES` are presets after the published systems, each with
its citation; :func:`resolve` applies a profile, then explicit knob overrides.
:func:`check_program` refuses a program outside a profile's fragment (or one a knob value
cannot give a meaning to) with located diagnostics.

>>> s = resolve("r4")
>>> s.window_bounds.value, s.profile
('half-open', 'r4')
>>> str(resolve("cql", duplicates="set"))
'cql,duplicates=set'
>>> resolve("default").is_default
True
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from . import ast
from .analysis import Analysis
from .analysis.graph import dependency_edges, within_components
from .errors import Diagnostic, ProgramError, UsageError
from .syntax.directives import capped, in_source_order

__all__ = [
    "WindowBounds",
    "Origin",
    "TupleScope",
    "TupleTies",
    "Duplicates",
    "FutureHeads",
    "Persistence",
    "Semantics",
    "Profile",
    "PROFILES",
    "KNOBS",
    "DEFAULT",
    "resolve",
    "parse_semantics_list",
    "check_program",
    "program_problems",
]


class _Knob(str, enum.Enum):
    """A knob value; the first member is today's behaviour."""

    def __str__(self) -> str:
        return self.value


def _knob(name: str, *values: str) -> type:
    """A knob's enum, its members named after their values (``half-open`` is ``HALF_OPEN``)."""
    return _Knob(name, [(v.upper().replace("-", "_"), v) for v in values], module=__name__)


# the knobs (docs/semantics.md, "Knobs"); a member is e.g. WindowBounds.HALF_OPEN
WindowBounds = _knob("WindowBounds", "closed", "half-open")  # [n] covers [t-n, t] (n+1 points), or (t-n, t]
Origin = _knob("Origin", "zero", "first")  # windows clip at 0, or at the stream's first time point
TupleScope = _knob("TupleScope", "all", "predicate")  # [n #] counts every predicate's atoms, or its own
TupleTies = _knob("TupleTies", "arrival", "choice")  # the cut inside the boundary time point
Duplicates = _knob("Duplicates", "set", "bag")  # the same atom twice in a time point counts once or twice
FutureHeads = _knob("FutureHeads", "predict", "inconsistent")  # an @-head beyond t: a prediction, or false
Persistence = _knob("Persistence", "recompute", "feedback")  # from the stream alone, or conclusions fed back

#: knob name -> its value enum (the option ``--window-bounds`` is the knob ``window_bounds``)
KNOBS = {
    "window_bounds": WindowBounds,
    "origin": Origin,
    "tuple_scope": TupleScope,
    "tuple_ties": TupleTies,
    "duplicates": Duplicates,
    "future_heads": FutureHeads,
    "persistence": Persistence,
}


@dataclass(frozen=True)
class Semantics:
    """One setting of every knob, and the profile it started from (for its fragment check);
    ``str()`` is the form :func:`resolve` reads back (``"r4,origin=first"``)."""

    window_bounds: WindowBounds = WindowBounds.CLOSED
    origin: Origin = Origin.ZERO
    tuple_scope: TupleScope = TupleScope.ALL
    tuple_ties: TupleTies = TupleTies.ARRIVAL
    duplicates: Duplicates = Duplicates.SET
    future_heads: FutureHeads = FutureHeads.PREDICT
    persistence: Persistence = Persistence.RECOMPUTE
    profile: str = "default"

    @property
    def knobs(self) -> dict:
        """``{knob name: value}`` for all seven knobs."""
        return {name: getattr(self, name) for name in KNOBS}

    @property
    def changed(self) -> tuple:
        """The knobs whose value is not today's behaviour (the first value)."""
        return self.differs(DEFAULT)

    @property
    def is_default(self) -> bool:
        """No knob changed (a profile may still add a fragment check)."""
        return not self.changed

    def differs(self, other: Semantics) -> tuple:
        """The knobs set differently in ``self`` and ``other``."""
        return tuple(k for k in KNOBS if getattr(self, k) is not getattr(other, k))

    def __str__(self) -> str:
        base = PROFILES[self.profile].semantics if self.profile in PROFILES else DEFAULT
        extra = [f"{k}={getattr(self, k)}" for k in self.differs(base)]
        return ",".join([self.profile] + extra)


@dataclass(frozen=True)
class Profile:
    """A preset: knob values after a published system, the citation, and its fragment."""

    name: str
    semantics: Semantics
    citation: str
    fragment: tuple = ()  # names of the checks of _fragment_problems


#: the project's own semantics: every knob at its first value
DEFAULT = Semantics()


def _profile(name, citation, fragment=(), **knobs) -> Profile:
    return Profile(
        name, Semantics(profile=name, **{k: KNOBS[k](v) for k, v in knobs.items()}), citation, tuple(fragment)
    )


PROFILES = {
    p.name: p
    for p in (
        _profile(
            "default",
            "docs/semantics.md, after LARS (Beck, Dao-Tran, Eiter, Fink, AAAI 2015: answer "
            "streams) and Ticker (Beck, Eiter, Folie, TPLP 2017: tick streams, Def. 4)",
        ),
        _profile(
            "lars",
            "Beck, Dao-Tran, Eiter, Fink: LARS: A Logic-based Framework for Analyzing Reasoning "
            "over Streams, AAAI 2015 (streams over their own timeline; tuple-based window functions "
            "leave the cut inside a time point open; answer streams over the timeline)",
            origin="first",
            tuple_ties="choice",
            future_heads="inconsistent",
        ),
        _profile(
            "ticker",
            "Beck, Eiter, Folie: Ticker: A system for incremental ASP-based stream reasoning, "
            "TPLP 2017 (tick streams: every signal is its own tick)",
            duplicates="bag",
        ),
        _profile(
            "laser",
            "Bazoobandi, Beck, Urbani: Expressive Stream Reasoning with Laser, ISWC 2017, and "
            "Laser2 (ESWC 2020): stratified programs, evaluated stratum by stratum",
            fragment=("stratified",),
        ),
        _profile(
            "r4",
            "Continuous Deductive Reasoning over Streamed RDF Data (R4/CoDeR): a triple arriving "
            "at e is valid in (e, e+n]; positive rules over one sliding window",
            fragment=("positive", "diamond_only", "one_range"),
            window_bounds="half-open",
        ),
        _profile(
            "cql",
            "Arasu, Babu, Widom: The CQL continuous query language, VLDB Journal 2006 (ROWS "
            "windows per stream, bag relations), as captured in LARS (AAAI 2015)",
            fragment=("no_recursion",),
            origin="first",
            tuple_scope="predicate",
            tuple_ties="choice",
            duplicates="bag",
        ),
    )
}


def _knob_value(name: str, value) -> enum.Enum:
    enum_ = KNOBS[name]
    try:
        return enum_(str(value))
    except ValueError:
        raise UsageError(
            Diagnostic(
                f"unknown {name} '{value}'",
                notes=(
                    f"{name} (on the command line --{name.replace('_', '-')}) is one of: "
                    f"{', '.join(v.value for v in enum_)}",
                ),
            )
        ) from None


def resolve(semantics: str | Semantics | None = None, **knobs) -> Semantics:
    """A profile (a name, ``"r4,origin=first"`` or a ``Semantics``), then explicit knob overrides
    (None: unset); unknown names raise :class:`UsageError`."""
    if isinstance(semantics, Semantics):
        base = semantics
    else:
        name, *items = [p.strip() for p in (semantics or "default").split(",")]
        if name not in PROFILES:
            raise UsageError(
                Diagnostic(f"unknown semantics profile '{name}'", notes=(f"profiles: {', '.join(PROFILES)}",))
            )
        base = PROFILES[name].semantics
        for item in items:
            key, eq, value = item.partition("=")
            key = key.strip().replace("-", "_")
            if not eq or key not in KNOBS:
                raise UsageError(
                    Diagnostic(f"bad semantics item '{item}'", notes=(f"write knob=value; knobs: {', '.join(KNOBS)}",))
                )
            knobs.setdefault(key, value.strip())
    unknown = sorted(set(knobs) - set(KNOBS))
    if unknown:
        raise UsageError(Diagnostic(f"unknown semantics knob '{unknown[0]}'", notes=(f"knobs: {', '.join(KNOBS)}",)))
    return replace(base, **{k: _knob_value(k, v) for k, v in knobs.items() if v is not None})


def parse_semantics_list(text: str, **knobs) -> list:
    """``"default,r4"`` -> two Semantics; a ``+`` joins an item's knobs: ``"default,default+origin=first"``."""
    return [resolve(item.replace("+", ","), **knobs) for item in text.split(",") if item.strip()]


# ---------------------------------------------------------------- fragment checks


def _body_atoms(program: ast.Program):
    """The extended atoms of the rules' bodies."""
    return (lit.element for rule in program.proper_rules for lit in rule.body if not lit.is_comparison)


def _refused(what: str, where, profile: str, why: str) -> Diagnostic:
    return Diagnostic(f"{what} is not allowed in the {profile} profile", where, (why,))


def _fragment_problems(analysis: Analysis, profile: Profile) -> list:
    """Diagnostics for the constructs outside the profile's fragment (its checks, by name)."""
    checks, name, out = profile.fragment, profile.name, []
    if "stratified" in checks:
        out += [
            Diagnostic(
                f"'{e.head}' depends negatively on '{e.body}' through a cycle: the {name} profile "
                "needs a stratified program",
                e.element.location,
                ("Laser evaluates a program stratum by stratum; an unstratified program has no stratum order",),
            )
            for e in analysis.negative_cycle
        ]
    if "positive" in checks:
        why = "R4 reasons with positive rules only"
        for rule in analysis.program.rules:
            if rule.is_constraint:
                out.append(_refused(f"constraint '{rule}'", rule.location, name, why))
            out += [_refused(f"negation '{lit}'", lit.element.location, name, why) for lit in rule.body if lit.negated]
    if "diamond_only" in checks:
        out += [
            _refused(f"@-head '{rule.head}'", rule.location, name, "R4 derives triples at the evaluation time only")
            for rule in analysis.program.proper_rules
            if rule.head is not None and rule.head.time is not None
        ]
        why = "R4 reads the stream through one sliding time window: only 'p in [n]' (a diamond over a time window)"
        for el in _body_atoms(analysis.program):
            if el.modality != ast.NOW and (el.modality != ast.DIAMOND or el.window.is_tuple):
                out.append(_refused(f"window atom '{el}'", el.location, name, why))
    if "one_range" in checks:
        sizes = {}
        for el in _body_atoms(analysis.program):
            if el.window is not None and not el.window.is_tuple:
                sizes.setdefault(analysis.size(el.window), el)
        (first, first_el), *others = sizes.items() or [(None, None)]
        out += [
            Diagnostic(
                f"window '{el}' has range {n}, but '{first_el}' has range {first}: the {name} "
                "profile allows one window range",
                el.location,
                ("R4 keeps one sliding window over the stream",),
            )
            for n, el in others
        ]
    if "no_recursion" in checks:
        edges = dependency_edges(analysis.program, analysis.intensional)
        out += [
            Diagnostic(
                f"'{e.head}' depends on '{e.element}' recursively: the {name} profile allows no recursion",
                e.element.location,
                (
                    f"predicates on the cycle: {', '.join(comp)}",
                    "CQL queries are views over streams and relations, never defined through themselves",
                ),
            )
            for e, comp in within_components(analysis.intensional, edges)[1]
        ]
    return out


def program_problems(semantics: Semantics, analysis: Analysis) -> list:
    """Diagnostics for a program outside the profile's fragment or meaningless under a knob, in
    source order."""
    profile = PROFILES.get(semantics.profile)
    out = _fragment_problems(analysis, profile) if profile else []
    if semantics.window_bounds is WindowBounds.HALF_OPEN:
        for el in _body_atoms(analysis.program):
            if el.window is not None and not el.window.is_tuple and analysis.size(el.window) == 0:
                out.append(
                    Diagnostic(
                        f"window '{el.window}' is empty under half-open window bounds",
                        el.window.location or el.location,
                        ("(t-n, t] holds n time points: use a window of at least one",),
                    )
                )
    files = dict.fromkeys(r.location.file for r in analysis.program.rules if r.location is not None)
    # in source order (the files in the order they were read), in the program's names: p, not p'2
    return [analysis.named(d) for d in in_source_order(out, files)]


def check_program(semantics: Semantics, analysis: Analysis, source: str | None = None) -> None:
    """Raise :class:`ProgramError` (status 2) listing :func:`program_problems`, if any."""
    problems = program_problems(semantics, analysis)
    if problems:
        raise ProgramError(capped(problems), source=source)
