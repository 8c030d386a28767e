"""The specification of a run: every choice one run makes, with its default and its check, once.

A :class:`RunSpec` is frozen and always valid: building one checks every field (a bad value is a
:class:`~ticker_py.errors.UsageError` naming the keyword, or on the command line the option). The
command line builds it from its options (which ``ticker_py.cli`` generates from these fields: the
same defaults, the same help), the API from keywords; every library function that runs a program
takes it and hands it down.

>>> spec = RunSpec.of(models=0, semantics="r4", until=5)
>>> spec.models_per_tick, str(spec.semantics), spec.until
(0, 'r4', 5)
>>> RunSpec.of(factorize=True).models_per_tick  # models: 1 by default, all with factorize
0
>>> RunSpec.of(model=0)
Traceback (most recent call last):
...
ticker_py.errors.UsageError: error: unknown keyword argument 'model'; did you mean 'models'?
  note: keywords: ...
"""

from __future__ import annotations

import contextvars
import difflib
import enum
import functools
import inspect
import re
from dataclasses import dataclass, fields, replace
from functools import cached_property
from pathlib import Path

from .ast import UNITS
from .engines import ENGINE_NAMES, EngineOptions
from .errors import Diagnostic, UsageError
from .limits import CLINGO_MAX, integral
from .rdf import RDF_FORMATS
from .semantics import DEFAULT, KNOBS, Semantics, resolve

__all__ = ["RunSpec", "Every", "MAX_GAP", "parse_clock", "whole", "takes_spec", "SECTIONS", "PURPOSES"]

#: Default of ``max_gap``: the most time points one record may skip (each is evaluated).
MAX_GAP = 100_000
#: output formats (``--format``); the RDF ones write the atoms of one ternary predicate
FORMATS = ("jsonl", "text", "csv", "none", "ntriples", "nquads")
RDF_OUTPUT = ("ntriples", "nquads")
#: stream formats (``--stream-format``): by suffix, the atom formats, the RDF ones
STREAM_FORMATS = ("auto", "text", "jsonl", "csv") + RDF_FORMATS
#: consequence modes: atoms in some (brave) or in every (cautious) answer stream
MODES = ("brave", "cautious")
#: the order a time point's atoms reach the engines (a research switch of compare and enumerate)
TUPLE_ORDERS = ("arrival", "reverse")
#: how a sharded run cuts the stream (auto: by key if the program allows it, else by time)
SHARD_BY = ("auto", "key", "time", "both")
#: the most shards: each builds its own reasoner, which takes milliseconds
MAX_SHARDS = 10_000
#: the engines whose answer stream ``inertia`` steers
INERTIA_ENGINES = ("incremental", "incremental-pure")

#: the sections of a run, in the order of its pipeline
PROGRAM, INPUT, EVALUATION, OUTPUT, SHARDS, LIVE = SECTIONS = (
    "program",
    "input",
    "evaluation",
    "output",
    "shards",
    "live",
)

#: defaults that depend on what the run is for (the command, and the API function doing the same):
#: comparisons, explanations and pictures look at every answer stream
PURPOSES = {"run": {}, "compare": {"models": 0}, "explain": {"models": 0}, "plot": {"models": 0}}


def whole(value, what: str, error=UsageError) -> int:
    """``value`` as an int >= 0: any integral number (``operator.index``: Python's, numpy's such as
    the ``np.int64`` of a DataFrame); not a bool, not a float. Else ``error`` names ``what``."""
    number = integral(value)
    if number is not None and number >= 0:
        return number
    raise error(Diagnostic(f"{what} must be an integer >= 0, not {value!r}"))


def check_max_gap(max_gap: int | None, what: str = "max_gap") -> int | None:
    """``max_gap`` checked: an int >= 0 (0 and None: no limit); ``what`` names it in the error."""
    if max_gap is None:
        return None
    return whole(max_gap, what) or None


class Every(str, enum.Enum):
    """When an engine is evaluated: once per time point, or after every atom (docs/cli.md, ``--every``)."""

    TIME = "time"
    SIGNAL = "signal"

    @classmethod
    def parse(cls, value: str | Every, what: str = "--every") -> Every:
        """``Every.parse("signal") is Every.SIGNAL``; anything else raises UsageError (naming ``what``)."""
        try:
            return cls(value)
        except ValueError:
            raise UsageError(Diagnostic(f"unknown {what} '{value}'", notes=("use time or signal",))) from None


_CLOCK = re.compile(r"^\s*(\d+)\s*([a-z]+)?\s*$")


def parse_clock(text: str | int) -> int:
    """The duration of one time point in ms: ``parse_clock("1s") == 1000``."""
    if type(text) is int and text > 0:
        return text
    if not isinstance(text, str):
        raise UsageError(Diagnostic(f"bad clock {text!r}", notes=("give a positive number of ms, or e.g. 1s, 500ms",)))
    m = _CLOCK.match(text)
    unit = m and ("sec" if m.group(2) in (None, "s") else m.group(2))  # the window units, and "s"
    if not m or unit not in UNITS or int(m.group(1)) == 0:
        raise UsageError(Diagnostic(f"bad clock '{text}'", notes=("write e.g. 1s, 500ms, 1min",)))
    return int(m.group(1)) * UNITS[unit]


# ``of(..., cli=True)`` names the fields as options (``--models``) in its errors, the API as keywords
_NAMING = contextvars.ContextVar("ticker_spec_naming", default=False)


@dataclass(frozen=True, repr=False)
class RunSpec:
    """Every choice of one run, checked (see the module doc; docs/api.md, "The run specification").

    Build it with keywords (``RunSpec(models=0)``, or :meth:`of`, which also takes the semantics knobs
    and refuses a misspelled keyword with the closest one); every function that runs a program takes
    it as ``spec=``, or the same keywords. Fields come in sections (:data:`OPTIONS` says what each
    does): the program (how it is loaded), the input, the evaluation, the output, shards, live streams.
    """

    clock: str | int = "1s"
    const: tuple = ()
    background: tuple = ()
    background_rdf: tuple = ()
    rdf_mapping: str = "triple"
    owl2rl: bool = False
    stream_format: str = "auto"
    until: int | None = None
    max_gap: int | None = MAX_GAP
    every: Every = Every.TIME
    tuple_order: str = "arrival"
    engine: str = "auto"
    models: int | None = None
    factorize: bool = False
    show: str = "derived"
    inertia: bool = False
    semantics: Semantics = DEFAULT
    strict: bool = False
    explainable: bool = False
    format: str = "jsonl"
    changes: bool = False
    show_at: bool = False
    consequences: str | None = None
    rdf_output: str = "triple"
    out: str | None = None
    shards: int | None = None
    shard_by: str = "auto"
    spark: bool = False
    master: str = "local[2]"
    input: str | None = None
    output: str | None = None
    wall_clock: bool = False
    grace: float = 1.0
    idle_timeout: float | None = 10.0
    save_input: str | None = None

    def __post_init__(self):
        _check(self, _Names(_NAMING.get()))

    def __repr__(self) -> str:
        """The fields set away from their defaults: ``RunSpec(models=0, semantics='r4')``."""
        changed = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value != f.default:
                shown = (
                    str(value) if isinstance(value, Semantics) else value.value if isinstance(value, Every) else value
                )
                changed.append(f"{f.name}={shown!r}")
        return f"RunSpec({', '.join(changed)})"

    # ------------------------------------------------------------ building

    @classmethod
    def of(cls, spec: RunSpec | None = None, *, accept=None, purpose: str = "run", cli: bool = False, **keywords):
        """``spec`` (or the defaults of ``purpose``, see :data:`PURPOSES`) with ``keywords`` over it:
        fields, and semantics knobs (``window_bounds="half-open"``) over the profile.

        ``accept``: the keywords allowed (default: every field); any other is refused, naming the
        closest. ``cli``: errors name the command line's options (``--models``) instead.
        """
        if spec is not None and not isinstance(spec, RunSpec):
            raise UsageError(Diagnostic(f"spec must be a RunSpec, not {spec!r}"))
        allowed = KEYWORDS if accept is None else accept
        for name in keywords:
            if name not in allowed and name not in KNOBS:
                raise unknown_keyword(name, list(allowed) + list(KNOBS))
        knobs = {k: keywords.pop(k) for k in list(keywords) if k in KNOBS}
        token = _NAMING.set(cli)
        try:
            if knobs or "semantics" in keywords:
                names = _Names(cli)
                semantics = keywords.get("semantics", spec.semantics if spec is not None else None)
                if semantics is not None and not isinstance(semantics, (str, Semantics)):
                    raise UsageError(
                        Diagnostic(f"{names('semantics')} is a profile name or a Semantics, not {semantics!r}")
                    )
                keywords["semantics"] = resolve(semantics, **knobs)
            if spec is None:
                return cls(**{**PURPOSES[purpose], **keywords})
            return replace(spec, **keywords) if keywords else spec
        finally:
            _NAMING.reset(token)

    # ------------------------------------------------------------ derived values

    @property
    def models_per_tick(self) -> int:
        """The answer streams a tick computes (0: all): ``models``; if not given, 1, or all with
        ``factorize`` or ``consequences``."""
        if self.models is not None:
            return self.models
        return 0 if self.factorize or self.consequences else 1

    @cached_property
    def clock_ms(self) -> int:
        """The duration of one time point in ms."""
        return parse_clock(self.clock)

    @property
    def constants(self) -> dict | None:
        """``const`` as a dict (None: no constant given)."""
        return dict(self.const) if self.const else None

    @property
    def sharded(self) -> bool:
        """The run is cut into shards (``shards`` or ``spark``)."""
        return self.spark or self.shards is not None

    @property
    def live(self) -> bool:
        """The run reads or writes live (TCP input or output, the wall clock, a saved input)."""
        return bool(self.input or self.output or self.wall_clock or self.save_input)

    def engine_options(self, show: str | None = None, changes_only: bool = False) -> EngineOptions:
        """What the engine is told (the one projection of the spec on the engines): ``show`` as the
        reasoner decides it (``#show`` shows every atom to the engine, then picks), ``changes_only``
        when the consumer reads only ``Result.changes``."""
        models = self.models_per_tick
        return EngineOptions(
            # more answer streams than clingo can count cannot be enumerated anyway: all of them (0)
            models=0 if self.factorize or models > CLINGO_MAX else models,
            show=show or self.show,
            inertia=self.inertia,
            changes_only=changes_only and not self.factorize,
            factorize=self.factorize,
            semantics=self.semantics,
        )


#: every field of the spec: its name -> the dataclass field
FIELDS = {f.name: f for f in fields(RunSpec)}
#: every keyword :meth:`RunSpec.of` takes (the knobs besides)
KEYWORDS = tuple(FIELDS)
_TCP = {"metavar": "tcp:HOST:PORT"}
#: each field's section, what it does (the command line's ``--help``, the API's docs) and how the
#: command line takes it: ``flag``, ``short``, ``metavar``, ``type``, ``choices`` (also checked),
#: ``repeat`` (the option may be given several times), ``api`` (the API's only)
OPTIONS = {
    "clock": (PROGRAM, "duration of one time point for window units", {}),
    "const": (
        PROGRAM,
        "the value of a constant, over the program's '#const NAME = VALUE.'",
        {"short": "-c", "metavar": "NAME=VALUE"},
    ),
    "background": (PROGRAM, "background facts in program syntax (files added in order)", {"metavar": "FILE"}),
    "background_rdf": (PROGRAM, "background triples from RDF files (.ttl/.nt/.rdf/...)", {"metavar": "FILE"}),
    "rdf_mapping": (
        PROGRAM,
        "triple: each triple is triple(S,P,O); property: p(S,O), named prefix_local by the @prefix map",
        {"choices": ("triple", "property")},
    ),
    "owl2rl": (PROGRAM, "add the shipped OWL 2 RL rules (subclass/subproperty closure, domain, range)", {}),
    "stream_format": (
        INPUT,
        "format of stdin and of stream files with another suffix: auto (by the suffix; stdin is text), "
        "text, jsonl, csv; nt, nq, rdf-csv, rdf-parquet: RDF streams",
        {"choices": STREAM_FORMATS},
    ),
    "until": (INPUT, "evaluate time points up to T", {"metavar": "T", "type": int}),
    "max_gap": (
        INPUT,
        "refuse a record more than N time points after the open one (each time point in between is "
        "evaluated and written); 0 = no limit",
        {"metavar": "N", "type": int},
    ),
    "every": (INPUT, "time: once per time point; signal: after every atom", {"choices": tuple(Every)}),
    "tuple_order": (
        INPUT,
        "arrival (a tuple window keeps the last-arrived atoms of its oldest time point) or reverse (the "
        "atoms of each time point are fed in reverse order, so it keeps the first-arrived)",
        {"choices": TUPLE_ORDERS},
    ),
    "engine": (
        EVALUATION,
        "the engine (auto: native if it can run the program, else incremental)",
        {"choices": ("auto",) + ENGINE_NAMES},
    ),
    "models": (EVALUATION, "answer streams per tick (0 = all)", {"type": int}),
    "factorize": (EVALUATION, "all answer streams per tick as a product: a common part times independent choices", {}),
    "show": (EVALUATION, "derived, or all (also input and background)", {"choices": ("derived", "all")}),
    "inertia": (EVALUATION, "prefer the previous tick's answer stream", {}),
    "semantics": (EVALUATION, "a profile: presets of the semantics knobs (docs/semantics.md)", {}),
    "strict": (
        EVALUATION,
        "an order comparison of a number with a string or literal that is no number is an error "
        "(default: a warning, once per comparison and kind of term)",
        {},
    ),
    "explainable": (EVALUATION, "every result keeps what explaining it needs (Result.explain)", {"api": True}),
    "format": (OUTPUT, "output format", {"choices": FORMATS}),
    "changes": (OUTPUT, "print what changed since the previous tick", {}),
    "show_at": (OUTPUT, "also print atoms pinned to other time points", {}),
    "consequences": (
        OUTPUT,
        "print per tick the number of answer streams and their brave/cautious consequences "
        "(enumerates all answer streams)",
        {"choices": MODES},
    ),
    "rdf_output": (
        OUTPUT,
        "with format ntriples/nquads: the ternary predicate whose atoms are the triples written",
        {"metavar": "NAME"},
    ),
    "out": (
        OUTPUT,
        "write results to FILE (default stdout; - is stdout); with spark: a directory of Parquet answers",
        {"metavar": "FILE"},
    ),
    "shards": (
        SHARDS,
        "number of shards (default with spark: Spark's parallelism); without spark the shards run one "
        "after another in this process",
        {"metavar": "N", "type": int},
    ),
    "shard_by": (
        SHARDS,
        "cut the stream by key, by time ranges, or both (a key x time grid); auto: by key if the program "
        "allows it, else by time (`ticker check` prints the plan)",
        {"choices": SHARD_BY},
    ),
    "spark": (SHARDS, "evaluate in Spark tasks, one per shard of the stream (needs pyspark)", {}),
    "master": (SHARDS, "Spark master", {}),
    "input": (
        LIVE,
        "accept producers on a TCP port (host defaults to 127.0.0.1; port 0 = any free port, announced on "
        "stderr) instead of the stream",
        _TCP,
    ),
    "output": (LIVE, "send the result lines to every client connected to this TCP port", _TCP),
    "wall_clock": (LIVE, "time points advance with real time (one per clock); atoms are stamped on arrival", {}),
    "grace": (LIVE, "with input: end this long after the last producer left", {"metavar": "SECONDS", "type": float}),
    "idle_timeout": (
        LIVE,
        "with input: a producer silent this long no longer holds the time back (0 = wait for it forever)",
        {"metavar": "SECONDS", "type": float},
    ),
    "save_input": (
        LIVE,
        "write every accepted record to FILE (text format) for an offline replay",
        {"metavar": "FILE"},
    ),
}


def section(*sections: str) -> tuple:
    """The names of the fields of ``sections``, in order."""
    return tuple(name for name in FIELDS if OPTIONS[name][0] in sections)


class _Names:
    """How an error names a field: the API's keyword (``models``, ``factorize=True``) or the command
    line's option (``--models``, ``--factorize``)."""

    def __init__(self, cli: bool):
        self.cli = cli

    def __call__(self, name: str) -> str:
        return "--" + name.replace("_", "-") if self.cli else name

    def given(self, name: str, value=True) -> str:
        """The field as the user sets it: ``factorize=True`` or ``--factorize``."""
        return self(name) if self.cli else f"{name}={value!r}"


def _set(spec, name: str, value) -> None:
    object.__setattr__(spec, name, value)


def _check(spec: RunSpec, names: _Names) -> None:
    """Check and normalise every field of ``spec`` (in place: called while it is built)."""
    for name, (_, _, cli) in OPTIONS.items():
        value, choices = getattr(spec, name), cli.get("choices")
        if choices and value not in choices and not (value is None and FIELDS[name].default is None):
            notes = (f"use one of: {', '.join(c.value if isinstance(c, Every) else c for c in choices)}",)
            raise UsageError(Diagnostic(f"unknown {names(name)} '{value}'", notes=notes))
    parse_clock(spec.clock)
    const = spec.const
    if isinstance(const, dict) or const is None:
        _set(spec, "const", tuple((const or {}).items()))
    elif not isinstance(const, tuple) or not all(isinstance(p, tuple) and len(p) == 2 for p in const):
        raise UsageError(Diagnostic(f"{names('const')} is a dict of names to values, not {const!r}"))
    for name in ("background", "background_rdf"):  # a path or a list of paths, kept as a tuple
        value = getattr(spec, name)
        paths = () if value is None else (value,) if isinstance(value, (str, Path)) else value
        if not isinstance(paths, (list, tuple)) or not all(isinstance(p, (str, Path)) for p in paths):
            raise UsageError(Diagnostic(f"{names(name)} must be a path or a list of paths, not {value!r}"))
        _set(spec, name, tuple(paths))
    for name in ("until", "models"):
        if getattr(spec, name) is not None:
            _set(spec, name, whole(getattr(spec, name), names(name)))
    _set(spec, "max_gap", check_max_gap(spec.max_gap, names("max_gap")))
    _set(spec, "every", Every(spec.every))
    if not isinstance(spec.semantics, Semantics):
        _set(spec, "semantics", resolve(spec.semantics))
    if spec.factorize and spec.semantics.changed:
        raise UsageError(
            Diagnostic(
                f"{names.given('factorize')} runs the default semantics",
                notes=(f"drop {names.given('factorize')} or the knobs of '{spec.semantics}'",),
            )
        )
    if spec.consequences is not None and (spec.changes or spec.format != "jsonl"):
        raise UsageError(
            Diagnostic(
                f"{names('consequences')} prints JSON Lines of its own",
                notes=(f"drop {names('changes')} and {names('format')}",),
            )
        )
    if spec.changes and spec.models_per_tick != 1 and not spec.factorize:
        raise UsageError(
            Diagnostic(f"{names('changes')} needs a single answer stream", notes=(f"use {names('models')} 1",))
        )
    if spec.format in RDF_OUTPUT and (spec.models_per_tick != 1 or spec.changes):
        raise UsageError(
            Diagnostic(
                f"{names('format')} {spec.format} writes a single answer stream",
                notes=(f"use {names('models')} 1 and no {names('changes')}",),
            )
        )
    if spec.shards is not None and (type(spec.shards) is not int or not 1 <= spec.shards <= MAX_SHARDS):
        raise UsageError(
            Diagnostic(
                f"{names('shards')} must be an integer from 1 to {MAX_SHARDS}, not {spec.shards!r}",
                notes=("each shard builds its own reasoner",),
            )
        )
    if spec.sharded:
        _check_sharded(spec, names)
    for name in ("grace", "idle_timeout"):
        value = getattr(spec, name)
        if value is not None and not value >= 0:
            raise UsageError(Diagnostic(f"{names(name)} must be 0 or more seconds, not {value:g}"))
    if spec.idle_timeout == 0:  # 0: wait for a silent producer forever
        _set(spec, "idle_timeout", None)
    if spec.output and spec.out not in (None, "-"):
        raise UsageError(Diagnostic(f"{names('output')} and {names('out')} exclude each other"))


def _check_sharded(spec: RunSpec, names: _Names) -> None:
    """What a sharded run cannot do."""
    drop = f"drop {names('shards')}/{names('spark')}"
    if spec.semantics.changed:
        raise UsageError(
            Diagnostic("sharded runs use the default semantics", notes=(f"{drop} or the knobs of '{spec.semantics}'",))
        )
    if spec.strict:
        raise UsageError(Diagnostic(f"{names('strict')} cannot be combined with {names('spark')} or {names('shards')}"))
    if spec.every is not Every.TIME:
        raise UsageError(
            Diagnostic(
                f"{names('every')} signal cannot be sharded: a tick's count spans all shards",
                notes=(f"run it without {names('shards')}/{names('spark')}",),
            )
        )
    if spec.live:
        raise UsageError(Diagnostic("live input or output cannot be sharded", notes=(drop,)))


# ---------------------------------------------------------------- keyword functions


def keywords_checked(function):
    """``function`` whose misspelled keyword argument is a UsageError naming the closest parameter
    (Python's TypeError names none)."""
    params = [p for p in inspect.signature(function).parameters.values() if p.name != "self"]
    names = [p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    known = frozenset(names)

    @functools.wraps(function)
    def checked(*args, **kwargs):
        for name in kwargs:
            if name not in known:
                raise unknown_keyword(name, names)
        return function(*args, **kwargs)

    return checked


def unknown_keyword(name: str, names: list) -> UsageError:
    """The error for a keyword argument that is none of ``names``, with the closest one."""
    close = difflib.get_close_matches(name, names, n=1)
    return UsageError(
        Diagnostic(
            f"unknown keyword argument '{name}'" + (f"; did you mean '{close[0]}'?" if close else ""),
            notes=(f"keywords: {', '.join(names)}",),
        )
    )


def default(name: str, purpose: str = "run"):
    """The default of field ``name`` for ``purpose`` as keywords and options give it (None: not given)."""
    value = PURPOSES[purpose].get(name, FIELDS[name].default)
    if isinstance(value, Every):
        return value.value
    return None if value == () or isinstance(value, Semantics) else value


def takes_spec(*sections: str, purpose: str = "run", loads: bool = False, exclude=(), also=(), inherit: bool = False):
    """Decorate a function with a keyword parameter ``spec``: it then also takes the spec's keywords of
    ``sections`` (but ``exclude``; and ``also``; and the semantics knobs with the evaluation), builds the spec from
    them and passes it on; a misspelled keyword is refused naming the closest one. Its signature
    (``help()``, ``inspect``) lists those keywords with the spec's defaults for ``purpose``.

    ``loads``: the first argument is a program, and the program's keywords cannot apply to one
    loaded already (an :class:`~ticker_py.analysis.Analysis`). ``inherit``: a method whose object's
    ``spec`` the keywords are set over."""
    accept = tuple(name for name in section(*sections) if name not in exclude) + tuple(also)
    knobs = EVALUATION in sections

    def decorate(function):
        params = list(inspect.signature(function).parameters.values())
        at = 1 if params and params[0].name == "self" else 0  # where the program is (a method: after self)
        own = [p for p in params if p.name not in ("self", "spec")]
        own_names = {p.name for p in own}
        all_names = [p.name for p in own] + list(accept) + (list(KNOBS) if knobs else [])

        @functools.wraps(function)
        def wrapper(*args, spec=None, **keywords):
            given = {}
            for name in list(keywords):
                if name in own_names:
                    continue
                if name not in accept and not (knobs and name in KNOBS):
                    raise unknown_keyword(name, all_names)
                given[name] = keywords.pop(name)
            if loads and given and len(args) > at:
                _refuse_program_options(args[at], given)
            if inherit and spec is None:
                spec = args[0].spec
            return function(*args, spec=RunSpec.of(spec, purpose=purpose, **given), **keywords)

        parameters = [p for p in inspect.signature(function).parameters.values() if p.kind is not p.VAR_KEYWORD]
        spec_param = next(p for p in parameters if p.name == "spec")
        parameters = [p for p in parameters if p.name != "spec"]
        parameters.append(spec_param.replace(kind=inspect.Parameter.KEYWORD_ONLY, default=None))
        present = {p.name for p in parameters}
        for name in accept:
            if name not in present:
                parameters.append(
                    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default(name, purpose))
                )
        if knobs:
            parameters.append(inspect.Parameter("knobs", inspect.Parameter.VAR_KEYWORD))
        wrapper.__signature__ = inspect.Signature(parameters, return_annotation=inspect.Signature.empty)
        wrapper.spec_keywords = accept
        return wrapper

    return decorate


def _refuse_program_options(program, given: dict) -> None:
    """A program loaded already takes none of the program's keywords (they would be dropped)."""
    if isinstance(program, (str, Path)) or type(program).__name__ != "Analysis":
        return
    used = [name for name in given if name in section(PROGRAM)]
    if used:
        raise UsageError(
            Diagnostic(
                f"{used[0]}= needs the program's source, not its analysis",
                notes=("give source text or a .lars path, or load the program with these keywords",),
            )
        )
