"""The data of a timeline: one lane per derived atom, the intervals of time points in which it holds.

The last evaluation of a time point counts. With several answer streams at a time point an atom
*holds* there when it is in every one, and holds *in some* when it is in some but not all.

>>> from ticker_py.streams.model import Model
>>> m = lambda *atoms: (Model(frozenset(atoms)),)
>>> tl = from_results([(0, m(("q", 1))), (1, m(("q", 1), ("p",))), (2, m(("p",)))])
>>> [(lane.atom, lane.spans) for lane in tl.lanes]
[('p', ((1, 2),)), ('q(1)', ((0, 1),))]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from ..errors import Diagnostic, UsageError
from ..limits import integral
from ..values import format_atom, term_key
from .select import Selection, check_selection, select

__all__ = [
    "Lane",
    "Timeline",
    "from_results",
    "from_runs",
    "side_by_side",
    "view",
    "span",
    "check_max_atoms",
    "span_text",
    "subtitle",
    "answers_key",
    "MAX_ATOMS",
    "MAX_SPAN",
    "CELL_MODELS",
]

#: atoms (lanes, or groups of lanes when runs are compared) shown before "... N more"
MAX_ATOMS = 60
#: the most time points one picture shows (a picture is drawn and tabulated time point by time point)
MAX_SPAN = 1_000_000
#: answer streams a table cell lists before "... N more"
CELL_MODELS = 8

ALL, SOME = 2, 1  # an atom holds in every answer stream of a time point, or in some


@dataclass(frozen=True)
class Lane:
    """One row of a timeline: where ``atom`` holds in the run ``run`` ("" for the one run).

    ``spans``/``partial``: inclusive ``(lo, hi)`` intervals where it is in every / some answer
    stream; ``pins``: time points it is pinned to by an @-head where it does not hold itself;
    ``marks``: where the run differs from the reference (the first), ``note`` why; ``runs``: the
    runs a collapsed lane stands for (all agree on this atom)."""

    atom: str
    group: str
    run: str = ""
    spans: tuple = ()
    partial: tuple = ()
    pins: tuple = ()
    marks: tuple = ()
    note: str = ""
    runs: tuple = ()

    @property
    def label(self) -> str:
        if self.runs:
            return f"{self.atom} · all {len(self.runs)} agree" if len(self.runs) > 1 else self.atom
        return f"{self.atom} · {self.run}" if self.run else self.atom


@dataclass(frozen=True)
class Timeline:
    """What a timeline picture shows.

    ``inputs``: input atoms per time point from ``start`` (empty: not known); ``streams``: ``(t,
    answer streams)`` of the first run; ``differing``: ``(t, runs differing from the reference)``;
    ``rows``: the table, ``(t, {run: (count, models) or None})``, at most :data:`CELL_MODELS`
    models of atom texts; ``differ``/``agree``: atoms on which the compared runs differ / agree."""

    title: str
    subtitle: str = ""
    start: int = 0
    end: int = 0
    lanes: tuple = ()
    more: int = 0
    runs: tuple = ("",)
    inputs: tuple = ()
    streams: tuple = ()
    differing: tuple = ()
    rows: tuple = ()
    unit: str = "time point"
    notes: dict = field(default_factory=dict)  # run -> (short, detail): what explains its differences
    differ: int = 0
    agree: int = 0
    unavailable: dict = field(default_factory=dict)  # run -> why it could not run (not applicable), located

    @property
    def several(self) -> bool:
        """Some time point has more than one answer stream (or none)."""
        return any(n != 1 for _, n in self.streams)


# ---------------------------------------------------------------- building


def atom_key(atom: tuple):
    """Timeline order: by predicate and arity, then clingo's order of the arguments."""
    return (atom[0], len(atom), tuple(term_key(a) for a in atom[1:]))


def _last_per_time(results: Iterable) -> dict:
    """``{t: models}``: the last evaluation of every time point (``models`` may be None)."""
    out = {}
    for r in results:
        t, models = (r.t, r.models) if hasattr(r, "models") else r
        out[t] = models
    return out


def span(times, start=None, end=None, names: tuple = ("start", "end")) -> tuple:
    """``(lo, hi)``: the time points a picture shows, by default the first..last of ``times``.

    The one check of every picture's range: a bad start or end, an empty picture and one of more
    than :data:`MAX_SPAN` time points are UsageErrors; ``names`` name start and end."""
    start, end = (_time_point(v, name) for v, name in zip((start, end), names))
    if start is not None and end is not None and start > end:
        raise UsageError(Diagnostic(f"{names[0]} {start} is after {names[1]} {end}"))
    if times:
        first, last = min(times), max(times)
        if start is not None and start > last:
            raise UsageError(
                Diagnostic(f"nothing to draw from t = {start} on: the last time point evaluated is {last}")
            )
        if end is not None and end < first:
            raise UsageError(Diagnostic(f"nothing to draw up to t = {end}: the first time point evaluated is {first}"))
    lo = start if start is not None else min(times, default=0)
    hi = max(lo, end if end is not None else max(times, default=lo))
    if hi - lo >= MAX_SPAN:
        raise UsageError(
            Diagnostic(
                f"a picture of t = {lo}–{hi} would show {hi - lo + 1} time points (at most {MAX_SPAN:,})",
                notes=(f"choose the time points shown ({names[0]}, {names[1]})",),
            )
        )
    return lo, hi


def _time_point(value, name: str) -> int | None:
    """``value`` (None, or an integer >= 0 of any integer type) as an int."""
    if value is None:
        return None
    number = integral(value)
    if number is not None and number >= 0:
        return number
    raise UsageError(Diagnostic(f"{name} must be an integer >= 0, not {value!r}"))


def check_max_atoms(max_atoms, name: str = "max_atoms") -> int | None:
    """``max_atoms`` checked: None or 0 (every atom: None), or an integer > 0."""
    if max_atoms is None:
        return None
    return _time_point(max_atoms, name) or None


class _Levels:
    """Per atom, its level (ALL/SOME) at each time point; and the time points it is pinned to."""

    def __init__(self, per: dict, selection: Selection | None):
        self.levels: dict = {}  # atom -> {t: level}
        self.pins: dict = {}  # atom -> {T}
        for t, models in per.items():
            for a, k in Counter(a for m in models or () for a in m.atoms).items():
                if selection is None or selection.matches(a):
                    self.levels.setdefault(a, {})[t] = ALL if k == len(models) else SOME
            for a, when in (pin for m in models or () for pin in m.pinned):
                if selection is None or selection.matches(a):
                    self.pins.setdefault(a, set()).add(when)

    def lane(self, atom: tuple, run: str = "", **extra) -> Lane:
        level = self.levels.get(atom, {})
        times = sorted(level)
        return Lane(
            format_atom(atom),
            f"{atom[0]}/{len(atom) - 1}",
            run,
            _intervals(t for t in times if level[t] == ALL),
            _intervals(t for t in times if level[t] == SOME),
            tuple(sorted(t for t in self.pins.get(atom, ()) if t not in level)),
            **extra,
        )


def _cell(models, selection: Selection | None):
    if models is None:
        return None
    shown = []
    for m in sorted(models, key=lambda m: m.printed_key())[:CELL_MODELS]:  # in printed order
        atoms = sorted((a for a in m.atoms if selection is None or selection.matches(a)), key=atom_key)
        pins = sorted(
            ((a, when) for a, when in m.pinned if selection is None or selection.matches(a)),
            key=lambda p: (p[1], atom_key(p[0])),
        )
        shown.append(tuple(format_atom(a) for a in atoms) + tuple(f"{format_atom(a)} at {w}" for a, w in pins))
    return (len(models), tuple(shown))


def from_results(
    results: Iterable,
    title: str = "answer stream",
    subtitle: str = "",
    inputs: dict | None = None,
    start: int | None = None,
    end: int | None = None,
    atoms: Selection | None = None,
    max_atoms: int | None = MAX_ATOMS,
) -> Timeline:
    """The timeline of one run: ``results`` are :class:`~ticker_py.streams.model.Result` s or
    ``(t, models)`` pairs; ``inputs``: ``{t: input atoms}``."""
    return from_runs({"": _last_per_time(results)}, title, inputs, start, end, atoms, max_atoms, None, subtitle)


def from_runs(
    runs: dict,
    title: str,
    inputs: dict | None = None,
    start: int | None = None,
    end: int | None = None,
    atoms: Selection | None = None,
    max_atoms: int | None = MAX_ATOMS,
    notes: dict | None = None,
    subtitle: str = "",
) -> Timeline:
    """Runs side by side: ``runs`` maps a label to ``{t: models}`` (None: not evaluated), the first
    the reference. An atom on which the runs differ gets a lane per run, the differences marked;
    one on which all agree, one collapsed lane. ``notes[run]``: ``(short, detail)``, what explains
    its differences."""
    labels = tuple(runs)
    every = set().union(*(r.keys() for r in runs.values())) if runs else set()
    lo, hi = span(every, start, end)
    max_atoms = check_max_atoms(max_atoms)
    shown = lambda per: {t: m for t, m in per.items() if lo <= t <= hi}  # noqa: E731
    runs = {label: shown(per) for label, per in runs.items()}
    levels = {label: _Levels(per, atoms) for label, per in runs.items()}
    ref = labels[0] if labels else ""
    all_atoms = set().union(*(set(lv.levels) | set(lv.pins) for lv in levels.values()))
    lanes_of = {a: tuple(levels[label].lane(a) for label in labels) for a in all_atoms}
    differ = sorted(
        (a for a, ls in lanes_of.items() if len({(x.spans, x.partial, x.pins) for x in ls}) > 1), key=atom_key
    )
    agree = sorted(all_atoms.difference(differ), key=atom_key)
    notes = dict(notes or {})
    cap = len(all_atoms) if max_atoms is None else max_atoms  # differing atoms first
    kept = agree[: max(0, cap - len(differ))]
    more = len(differ) + len(agree) - min(cap, len(differ)) - len(kept)
    lanes = []
    for a in differ[:cap]:
        ref_level = levels[ref].levels.get(a, {})
        for label in labels:
            marks = ()
            if label != ref:
                mine = levels[label].levels.get(a, {})
                marks = _intervals(t for t in sorted(set(mine) | set(ref_level)) if mine.get(t) != ref_level.get(t))
            lanes.append(levels[label].lane(a, label, marks=marks, note=notes.get(label, ("", ""))[0] if marks else ""))
    lanes += [replace(levels[ref].lane(a), runs=labels) for a in kept]
    if atoms is not None:  # an item no shown atom matches: an empty lane says so
        for item, part in zip(atoms.items, atoms.parts):
            if not any(atoms.matches(a, item) for a in all_atoms):
                lanes.append(Lane(f"{part}: no atom holds", part))
    first = runs.get(ref, {})
    streams = tuple((t, len(first[t])) for t in sorted(first) if first[t] is not None)
    differing = ()
    if len(labels) > 1:
        keys = {label: {t: answers_key(m) for t, m in per.items()} for label, per in runs.items()}
        differing = tuple(
            (t, tuple(label for label in labels[1:] if keys[label].get(t, 0) != keys[ref].get(t, 0)))
            for t in range(lo, hi + 1)
        )
    rows = tuple(
        (t, {label: _cell(runs[label].get(t), atoms) for label in labels})
        for t in range(lo, hi + 1)
        if any(t in per for per in runs.values())
    )
    inputs = tuple(inputs.get(t, 0) for t in range(lo, hi + 1)) if inputs is not None else ()
    counts = (len(differ), len(agree)) if len(labels) > 1 else (0, 0)
    return Timeline(
        title,
        subtitle,
        lo,
        hi,
        tuple(lanes),
        more,
        labels,
        inputs,
        streams,
        differing,
        rows,
        notes=notes,
        differ=counts[0],
        agree=counts[1],
    )


def side_by_side(
    runs: dict,
    notes: dict,
    title: str,
    start=None,
    end=None,
    atoms: Selection | None = None,
    max_atoms: int | None = MAX_ATOMS,
    inputs: dict | None = None,
    unavailable: dict | None = None,
) -> Timeline:
    """:func:`from_runs` with a subtitle that says which runs, which time points, how many differ;
    ``unavailable``: the runs that could not read the program, and why."""
    tl = from_runs(runs, title, inputs=inputs, start=start, end=end, atoms=atoms, max_atoms=max_atoms, notes=notes)
    differing = sum(1 for _, r in tl.differing if r)
    sub = subtitle(
        f"runs {', '.join(runs)} (reference {next(iter(runs), '–')})",
        span_text(tl.start, tl.end),
        _count(differing, "time point", "differ"),
        f"{_count(tl.differ, 'atom', 'differ')}, {tl.agree} agree{'s' if tl.agree == 1 else ''}",
        f"not applicable: {', '.join(unavailable)}" if unavailable else "",
        atoms=atoms,
    )
    return replace(tl, subtitle=sub, unavailable=dict(unavailable or {}))


def _count(n: int, noun: str, verb: str) -> str:
    """``1 time point differs``, ``2 time points differ``."""
    return f"{n} {noun} {verb}s" if n == 1 else f"{n} {noun}s {verb}"


def answers_key(models):
    """Answer streams compared as a set (None: not evaluated)."""
    return None if models is None else frozenset((m.atoms, m.pinned) for m in models)


def _intervals(times: Iterable) -> tuple:
    out = []
    for t in times:
        if out and out[-1][1] == t - 1:
            out[-1][1] = t
        else:
            out.append([t, t])
    return tuple((lo, hi) for lo, hi in out)


def subtitle(*parts: str, atoms: Selection | None = None) -> str:
    """A picture's subtitle: the ``parts`` that say something and the ``atoms`` selected, joined by `` · ``."""
    return " · ".join([part for part in parts if part] + ([f"atoms {atoms.text}"] if atoms is not None else []))


def span_text(lo: int, hi: int) -> str:
    """``t = 3–7 (5 time points)``: the time points a picture shows, for its subtitle."""
    n = hi - lo + 1
    return f"t = {lo}–{hi} ({n} time point{'' if n == 1 else 's'})"


def view(
    results, title: str | None = None, start=None, end=None, atoms=None, max_atoms=MAX_ATOMS, unit: str = "time point"
) -> Timeline:
    """The timeline of results as the API shows them (``Result.plot``, ``Results.plot``): ``atoms``
    a pattern text or a :class:`Selection`, checked against the predicates of the results' atoms
    and of the program's (``predicates``, when the results carry them)."""
    selection = select(atoms, "atoms") if isinstance(atoms, str) else atoms
    about, inputs = getattr(results, "about", ""), getattr(results, "inputs", None)
    program = getattr(results, "predicates", None)
    results = list(results)
    per_t = _last_per_time(results)
    lo, hi = span(set(per_t), start, end)
    if selection is not None:
        atoms_of = (a for ms in per_t.values() for m in ms or () for a in (*m.atoms, *(p[0] for p in m.pinned)))
        known = {(a[0], len(a) - 1) for a in atoms_of}
        check_selection(selection, known | set(program or ()), "the program has" if program else "the results have")
    title = title or (f"answer stream at t = {results[0].t}" if len(results) == 1 else "answer streams")
    sub = subtitle(about, span_text(lo, hi) if per_t else "no time point evaluated (an empty stream)", atoms=selection)
    return replace(from_runs({"": per_t}, title, inputs, lo, hi, selection, max_atoms, None, sub), unit=unit)
