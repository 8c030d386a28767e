"""The evaluation stage: one engine, tick by tick, and its answers as the program shows them.

:class:`Evaluation` creates the engine the :class:`~ticker_py.spec.RunSpec` names for a program and
is what the driver (:mod:`.drive`) drives: ``append(t, atoms)`` takes atoms the input stage
accepted, ``evaluate(t)`` returns the Result at tick (t, c) with the program's names and ``#show``,
factorized or in printed order as asked, and able to explain itself if the spec says
``explainable``. A consumer that writes the results (the output stage, :mod:`.output`) says what
it reads: ``changes_only`` lets the engine send only the changes of its single answer stream, and
``orders``: it prints several answer streams in order itself.
"""

from __future__ import annotations

import contextlib
import threading
from functools import partial

from ..analysis import GENERAL
from ..engines import create_engine
from ..errors import Diagnostic, UsageError
from ..semantics import Duplicates, Origin
from ..streams.model import Result, in_printed_order
from ..values import COMPARISONS, Comparisons
from .shown import ShownAtoms

__all__ = ["Evaluation"]


class Evaluation:
    """The engine of ``analysis`` under ``spec`` (see the module doc); ``output``: the consumer that
    writes the results (with ``changes_only`` and ``orders``; nothing is kept for explanations then,
    unless the spec says ``explainable``), or None: results for the caller, in printed order.
    ``why``: what explains an atom at a tick, ``why(analysis, (history, t, c, models, semantics,
    origin), atom, model, why_not, all_models)``: the API gives :mod:`ticker_py.explain`'s (which
    reads ``streams.model``: so that the packages do not import each other), or None: results
    cannot explain themselves."""

    def __init__(self, analysis, spec, output=None, why=None):
        self.analysis, self.spec, self.why = analysis, spec, why
        self.semantics = semantics = spec.semantics
        self.shown, show = ShownAtoms.of(analysis, spec.show)
        changes_only = output is not None and output.changes_only
        self.engine = create_engine(spec.engine, analysis, spec.engine_options(show, changes_only))
        self.engine_name = self.engine.name
        self.factorize, self.models = spec.factorize, spec.models_per_tick
        self.kept = None  # the window-covered stream, for explanations
        if output is None or spec.explainable:
            from ..windows import Windows

            self.kept = Windows(analysis, semantics).history()
        self.ordered = not getattr(output, "orders", False)  # a writer may print them in order itself
        self.explainable = spec.explainable
        self.time = 0
        self.atoms_in = 0
        self.started = False  # something was appended or evaluated (origin=first: the origin is known)
        self.origin = 0  # where the timeline starts: under origin=first the first append or evaluate
        self.bag = semantics.duplicates is Duplicates.BAG
        self.last: Result | None = None  # the latest result, as explanations read it
        self._texts = None  # printed atoms, to order several answer streams
        self._busy = threading.Lock()
        self.comparisons = Comparisons(strict=bool(spec.strict))

    def rename_with(self, renaming) -> None:
        """Print atoms under ``renaming`` 's program names (stream atoms of a name with an arity the
        program does not use arrive under names of their own; see :class:`~.input.Input`)."""
        if self.shown is None:
            self.shown = ShownAtoms()
        self.shown.rename = renaming.atom_out

    def append(self, t: int, atoms: list) -> None:
        """Add atoms of time t that the input stage accepted."""
        with self.exclusive():
            self._start(t)
            self.atoms_in += len(atoms)
            if self.kept is not None:
                self.kept.extend(t, atoms)
            self.engine.append(t, atoms)

    def evaluate(self, t: int) -> Result:
        """The answer streams at time t (see the module doc)."""
        with self.exclusive():
            self._start(t)
            if self.kept is not None:
                self.kept.trim(t)
            result = self.engine.evaluate(t)
        raw = result  # what explanations read: every atom
        if self.shown is not None:
            result = self.shown.result(result)
        if self.factorize:
            from ..streams.factorized import with_factors

            result = with_factors(result, self.models)
        elif self.ordered and result.models is not None and len(result.models) > 1:
            result = result.replace(models=self._in_printed_order(result.models))
        if self.explainable and self.why is not None and result.models is not None:
            explainer = partial(
                _explain_result, self.why, self.analysis, tuple(self.kept.entries), self.semantics, self.origin
            )
            if raw is not result and self.shown is not None:  # explained over every atom, not the shown ones
                explainer = partial(_explain_raw, explainer, raw)
            result = result.replace(explainer=explainer)
        self.last = raw if self.shown is not None else result
        return result

    def explain(self, atom, model: int, why_not: bool, all_models: bool | None):
        """Why ``atom`` holds (or not) in answer stream ``model`` of the latest result."""
        if self.kept is None or self.why is None:
            raise UsageError(
                Diagnostic(
                    "this Reasoner keeps no history to explain from",
                    notes=("create it without an output, or with explainable=True",),
                )
            )
        if all_models is None:  # at most one answer stream, or all of them computed
            all_models = self.models == 0 or self.analysis.fragment != GENERAL
        last = self.last
        tick = (self.kept.entries, last.t, last.c, last.models, self.semantics, self.origin)
        return self.why(self.analysis, tick, atom, model, why_not, all_models)

    def _in_printed_order(self, models) -> tuple:
        """Several answer streams in the order every output prints and numbers them: by their
        sorted atoms, then their pins (:meth:`Model.printed_key`; texts cached across ticks)."""
        if self._texts is None:
            from ..streams.texts import AtomTexts

            self._texts = AtomTexts()
        return tuple(in_printed_order(models, self._texts.key))

    def _start(self, t: int) -> None:
        """The stream stands at t (under origin=first the first call fixes the origin)."""
        if not self.started and self.semantics.origin is Origin.FIRST:
            self.origin = t
        self.time = t
        self.started = True

    @contextlib.contextmanager
    def exclusive(self):
        """Not thread-safe: a call while another thread is inside one raises UsageError."""
        if not self._busy.acquire(blocking=False):
            raise UsageError(
                Diagnostic(
                    "this Reasoner is in use by another thread",
                    notes=(
                        "a Reasoner is not thread-safe: use one per thread, or "
                        "ticker_py.live.LiveReasoner, whose methods take a lock",
                    ),
                )
            )
        token = COMPARISONS.set(self.comparisons)
        try:
            yield
        finally:
            COMPARISONS.reset(token)
            self._busy.release()


def _explain_result(why, analysis, history, semantics, origin, result, atom, model, why_not):
    return why(analysis, (history, result.t, result.c, result.models, semantics, origin), atom, model, why_not)


def _explain_raw(explainer, raw, result, atom, model, why_not):
    return explainer(raw, atom, model, why_not)
