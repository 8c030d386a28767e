"""One program, one stream, several semantics: where and why the answer streams part.

:func:`compare_semantics` runs the program under each :class:`~ticker_py.semantics.Semantics` (on
one engine or several) and lines the results up per time point, a time point's answer streams being
those of its last evaluation. The summary counts, per *dimension* (the knobs in which two runs
differ; ``engine``; ``same knobs``), the time points where such runs differ (docs/semantics.md).
A semantics or engine that cannot read the program is listed as not applicable, with its reason.

>>> cmp = compare_semantics("q :- p in [1].", [(0, ["p"]), (1, []), (2, [])], ["default", "r4"])
>>> [(row.t, row.differs) for row in cmp.rows]
[(0, False), (1, True), (2, False)]
>>> cmp.summary
{'window_bounds': 1}
>>> print(format_text(cmp))
t=1: answer streams differ
  default  {q}
  r4       {}
1 of 3 time points differ (default, r4)
dimension      differing time points
window_bounds  1
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations, product

from .api import Reasoner, analysed
from .errors import EngineUnsupported, ProgramError, UsageError
from .plot.timeline import MAX_ATOMS, answers_key
from .semantics import Semantics, parse_semantics_list, resolve
from .spec import INPUT, PROGRAM, RunSpec, takes_spec
from .stages.input import Input
from .values import format_atom

__all__ = ["SemanticsRow", "SemanticsComparison", "compare_semantics", "difference", "format_text", "format_json"]


class SideBySide:
    """The pictures of a comparison: its ``_runs()`` (``{run: {t: models}}``, the first the reference)
    side by side, labelled with its ``notes()``."""

    def timeline(self, title: str = "", start=None, end=None, atoms=None, max_atoms=MAX_ATOMS, inputs=None):
        """The runs side by side as a :class:`~ticker_py.plot.timeline.Timeline`, differences labelled
        with :meth:`notes`; ``atoms``: a pattern (``q(_)``) or a Selection."""
        from .plot.select import select
        from .plot.timeline import side_by_side

        runs = self._runs()
        title = title or f"{self._KIND} {', '.join(runs)}"
        atoms = select(atoms) if isinstance(atoms, str) else atoms
        inputs = self.inputs if inputs is None else inputs
        return side_by_side(runs, self.notes(), title, start, end, atoms, max_atoms, inputs, self.unavailable)

    def plot(self, width: float = 11.0, **options):
        """The picture of :meth:`timeline` (``options``: its keywords), a matplotlib Figure."""
        from .plot.draw import figure

        return figure(self.timeline(**options), width=width)

    def _repr_html_(self) -> str:
        from .plot.html import comparison_html

        return comparison_html(self.timeline(max_atoms=20))

    def to_dataframe(self):
        """A pandas DataFrame: columns ``run, t, model, atom`` (an engine comparison's: ``run, t, c, model,
        atom``, of the ticks kept), one row per atom of each answer stream (pins as ``"a at T"``)."""
        import pandas as pd

        rows = [
            (*where, k, atom) for where, models in self._printed() for k, atoms in enumerate(models) for atom in atoms
        ]
        return pd.DataFrame(rows, columns=["run", "t", *self._TICK, "model", "atom"])


@dataclass(frozen=True)
class SemanticsRow:
    """One time point: each run's answer streams (None: the run did not evaluate it)."""

    t: int
    answers: dict  # label -> tuple of Models, or None

    @property
    def differs(self) -> bool:
        return len({answers_key(models) for models in self.answers.values()}) > 1

    def pairs(self) -> list:
        """The labels of the runs whose answers differ here, two by two."""
        keys = {label: answers_key(models) for label, models in self.answers.items()}
        return [(a, b) for a, b in combinations(keys, 2) if keys[a] != keys[b]]


@dataclass(frozen=True)
class SemanticsComparison(SideBySide):
    """The rows, the runs (label -> (Semantics, engine)), the summary and the runs not applicable."""

    runs: dict
    rows: tuple
    summary: dict  # dimension ("window_bounds", "origin+duplicates", "engine") -> differing time points
    unavailable: dict = field(default_factory=dict)
    inputs: dict = field(default_factory=dict)  # t -> input atoms

    _KIND = "semantics"
    _TICK = ()  # the columns that say when, after run and t

    @property
    def agree(self) -> bool:
        return not any(row.differs for row in self.rows)

    def notes(self) -> dict:
        """``{label: (short, detail)}``: what explains each run's differences from the first one."""
        labels, out = list(self.runs), {}
        for label in labels[1:]:
            ref, (sem, engine) = self.runs[labels[0]], self.runs[label]
            same = f"the same knobs as {labels[0]} (engine {engine})" if engine == ref[1] else ""
            detail = knob_values(sem, ref[0]) or same or f"the same semantics on engine {engine}"
            out[label] = (difference(ref, self.runs[label]), detail)
        return out

    def _runs(self) -> dict:
        return {label: {row.t: row.answers[label] for row in self.rows} for label in self.runs}

    def _printed(self):
        return (((label, row.t), printed(models or ())) for row in self.rows for label, models in row.answers.items())


@takes_spec(PROGRAM, INPUT, also=("models", "show", "strict"), purpose="compare", loads=True, exclude=("tuple_order",))
def compare_semantics(
    program, stream, semantics: str | Sequence[str | Semantics], engines: Sequence[str] = ("auto",), *, spec: RunSpec
) -> SemanticsComparison:
    """Run ``program`` over ``stream`` under every semantics on every engine (see the module doc).

    Parameters
    ----------
    program, stream
        As for :func:`ticker_py.run`; the stream is read once.
    semantics : str or sequence
        The semantics: profiles (``"r4"``), ``Semantics``, or a profile with knobs (``"default,origin=first"``);
        or one string as ``ticker compare --semantics`` takes it (``"default,r4"``, ``+`` joining a
        profile and its knobs: ``"default,default+origin=first"``).
    engines : sequence of str
        The engines each semantics runs on (``auto``: as a single run picks), or one string of them
        (``"clingo,native"``). No profile or engine, or one run given twice, is a UsageError.
    models, show, strict
        The evaluation (:class:`~ticker_py.spec.RunSpec`); ``models`` is 0, all, by default.
    until, every, max_gap, stream_format
        The input, as for :func:`ticker_py.run`.
    clock, const, background, background_rdf, rdf_mapping, owl2rl
        How the program is loaded, as for :func:`ticker_py.load_program`.

    Returns
    -------
    SemanticsComparison
        Per time point each run's answer streams, and per dimension (knobs, engine) the time points
        where they differ.

    See Also
    --------
    ticker_py.compare_engines, format_text
    """
    semantics = [resolve(s) for s in _listed(semantics, "semantics profile", parse_semantics_list)]
    engines = _listed(engines, "engine", engine_names)
    analysis = analysed(program, spec)
    inputs: dict = {}
    stage = Input(analysis, spec, counts=inputs, rename=False)  # the stream read once (each run renames)
    records = list(stage.records(stage.open(stream)))
    runs, per_run, unavailable = {}, {}, {}
    for sem, engine in product(semantics, engines):
        try:
            reasoner = Reasoner(analysis, spec=RunSpec.of(spec, semantics=sem, engine=engine))
        except (ProgramError, EngineUnsupported) as err:  # this semantics cannot read the program
            unavailable[str(sem) if len(engines) == 1 else f"{sem}@{engine}"] = err.reason
            continue
        label = str(sem) if len(engines) == 1 else f"{sem}@{reasoner.engine_name}"
        if label in runs:
            raise UsageError.at(None, f"the run '{label}' is given twice", "give each semantics and engine once")
        runs[label] = (sem, reasoner.engine_name)
        per_run[label] = {result.t: result.models for result in reasoner.feed(iter(records))}  # a time point's last
    times = sorted(set().union(*(r.keys() for r in per_run.values())))
    rows = tuple(SemanticsRow(t, {label: per_run[label].get(t) for label in runs}) for t in times)
    summary = {difference(runs[a], runs[b]): 0 for a, b in combinations(runs, 2)}
    for row in rows:
        for dim in {difference(runs[a], runs[b]) for a, b in row.pairs()}:
            summary[dim] += 1
    return SemanticsComparison(runs, rows, summary, unavailable, inputs)


def engine_names(text: str) -> list:
    """The engines of a comma list (``"clingo, native"``)."""
    return [e.strip() for e in text.split(",") if e.strip()]


def _listed(given, what: str, split) -> list:
    """``given`` as a list: a string is the CLI's comma list (``split``); a list must not be empty."""
    items = split(given) if isinstance(given, str) else list(given)
    if not items:
        raise UsageError.at(None, f"no {what} to compare", f"give at least one {what}")
    return items


def difference(a: tuple, b: tuple) -> str:
    """What explains a difference between two ``(Semantics, engine)`` runs: the knobs in which they
    differ, joined by ``+``; else ``engine`` (two engines) or ``same knobs``."""
    knobs = a[0].differs(b[0])
    return "+".join(knobs) if knobs else "engine" if a[1] != b[1] else "same knobs"


def knob_values(sem: Semantics, ref: Semantics) -> str:
    """The knobs in which ``sem`` differs from ``ref``, with its values: ``origin=first, ...``."""
    return ", ".join(f"{k}={getattr(sem, k).value}" for k in sem.differs(ref))


def models_text(models) -> str:
    """Answer streams as printed (``{a, b} {c}``), or that there are none or none was computed."""
    return "not evaluated" if models is None else " ".join(shown(models)) or "no answer stream"


def shown(models, text=format_atom) -> list:
    """Answer streams as printed, ``{a, b at 3}``, in printed order (``text`` prints an atom)."""
    return ["{" + ", ".join(atoms) + "}" for atoms in printed(models, text)]


def printed(models, text=format_atom) -> list:
    """Answer streams as lists of atoms (pins ``a at T`` after them), in printed order."""
    return [list(atoms + pins) for atoms, pins in sorted(m.printed_key(text) for m in models)]


def format_text(cmp: SemanticsComparison, max_diffs: int = 20) -> str:
    """The differing time points (up to ``max_diffs``), then the summary table."""
    out, differing = [], [row for row in cmp.rows if row.differs]
    for row in differing[:max_diffs]:
        out.append(f"t={row.t}: answer streams differ")
        width = max(len(label) for label in row.answers)
        out += [f"  {label:<{width}}  {models_text(models)}" for label, models in row.answers.items()]
    if len(differing) > max_diffs:
        out.append(f"... {len(differing) - max_diffs} more differing time points")
    out += [f"{label}: not applicable: {why}" for label, why in cmp.unavailable.items()]
    out.append(f"{len(differing)} of {len(cmp.rows)} time points differ ({', '.join(cmp.runs)})")
    if cmp.summary:
        width = max(len("dimension"), *(len(d) for d in cmp.summary))
        out.append(f"{'dimension':<{width}}  differing time points")
        out += [f"{dim:<{width}}  {count}" for dim, count in cmp.summary.items()]
    return "\n".join(out)


def format_json(cmp: SemanticsComparison) -> str:
    """JSON Lines: one object per time point, then ``{"summary": ...}``."""
    lines = []
    for row in cmp.rows:
        answers = {label: None if models is None else printed(models) for label, models in row.answers.items()}
        lines.append(json.dumps({"t": row.t, "differs": row.differs, "answers": answers}))
    runs = {label: {"semantics": str(sem), "engine": eng} for label, (sem, eng) in cmp.runs.items()}
    lines.append(json.dumps({"summary": cmp.summary, "runs": runs, "unavailable": cmp.unavailable}))
    return "\n".join(lines)
