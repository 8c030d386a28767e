"""The pure incremental engine: the incremental encoding, grounded once, solved by one clingo Control.

Per tick the instances that expired or arrived, and the slots time reuses, switch their externals,
and the program is solved: nothing is grounded, unless an atom outside the declared domain or new
exact arithmetic needs a fresh Control (docs/incremental.md). A program whose times cannot be slots
is solved with the static encoding at every tick (:class:`StaticTicks`).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence
from functools import lru_cache

import clingo

from .. import ast
from ..analysis import Analysis
from ..encode.exact import Bounds, ExactProgram
from ..encode.incremental import encode_incremental
from ..encode.windows.base import NOW, NOW_SLOT, Instances
from ..streams.model import Model, Result
from ..values import clingo_term, format_term
from .base import Engine, EngineOptions, ModelDiffer
from .clingo_engine import ClingoEngine, ModelReader, ground, prefer_previous
from .wide import check_clingo_strings, check_window_sizes, symbol_to_term

__all__ = ["PureIncrementalEngine", "SlotRing", "StaticTicks"]

_NOW = NOW.name  # the constant of the current time point, as a ground term


class SlotRing:
    """The slots of the time points the windows can still read: those of [t - reach, t] and
    those an instance of a tuple @-window holds. ``changed``: the ``_now``/``_w{n}`` externals
    switched since the engine last read it, as ``(name, slot) -> bool``."""

    def __init__(self, size: int, reach: int, members: Sequence[int]):
        self.reach = reach
        self.free = list(range(size - 1, -1, -1))
        self.slot_of: dict = {}  # time point -> slot
        self.time_of: list = [None] * size
        self.times: deque = deque()  # time points of [t - reach, t] with a slot, ascending
        self.held: Counter = Counter()  # time point -> instances holding it
        self.members = {n: deque() for n in members}  # time points in _w{n}, ascending
        self.t = None
        self.changed: dict = {}

    def slot(self, u: int) -> int:
        return self.slot_of[u]

    def hold(self, u: int) -> None:
        self.held[u] += 1

    def release(self, u: int) -> None:
        self.held[u] -= 1
        if not self.held[u]:
            del self.held[u]
            if u < self.t - self.reach:
                self._free(u)

    def _free(self, u: int) -> None:
        s = self.slot_of.pop(u)
        self.time_of[s] = None
        self.free.append(s)

    def move(self, t: int) -> None:
        """Time moves on to t (the instances of expired time points are off already)."""
        prev, changed, slot_of = self.t, self.changed, self.slot_of
        lo = max(0, t - self.reach)
        if prev is not None:
            changed[(NOW_SLOT, slot_of[prev])] = False
        for n, inside in self.members.items():
            name = f"_w{n}"
            while inside and inside[0] < t - n:
                changed[(name, slot_of[inside.popleft()])] = False
        times = self.times
        while times and times[0] < lo:
            u = times.popleft()
            if u not in self.held:
                self._free(u)
        for u in range(lo if prev is None else max(lo, prev + 1), t + 1):
            s = self.free.pop()
            slot_of[u], self.time_of[s] = s, u
            times.append(u)
        self.t = t
        changed[(NOW_SLOT, slot_of[t])] = True
        for n, inside in self.members.items():
            name = f"_w{n}"
            for u in range(max(t - n, 0 if prev is None else prev + 1), t + 1):
                if u in slot_of:
                    inside.append(u)
                    changed[(name, slot_of[u])] = True

    def state(self) -> dict:
        """Every ``_now``/``_w{n}`` external that is on."""
        out = {} if self.t is None else {(NOW_SLOT, self.slot_of[self.t]): True}
        for n, inside in self.members.items():
            out.update(((f"_w{n}", self.slot_of[u]), True) for u in inside)
        return out


class Derived(Instances):
    """The head instances of a rule instantiated on arrival (:class:`~ticker_py.encode.incremental.Arrival`):
    each holds while one of the window instances it was instantiated for holds. ``table``: per
    atom (its arguments), the head instances it gives (read from the ground ``_fires{k}``)."""

    def __init__(self, arrival, at: bool):
        super().__init__(arrival.name)
        self.pinned, self.at = arrival.pinned, at
        self.table: dict = {}

    def read(self, ctl: clingo.Control, arrival) -> None:
        """The table of the ground program; the instances start over (switched on from the window's)."""
        table = {}
        for atom in ctl.symbolic_atoms.by_signature(arrival.table, arrival.arity):
            args, heads = _row(atom.symbol, arrival.width)
            table.setdefault(args, []).append(heads)
        self.table, self.holding, self.changed = table, {}, {}

    def switch(self, key: tuple, on: bool) -> None:
        """The window instance ``key`` (the atom's arguments, and its slot for @) went on or off."""
        args, slot = (key[:-1], key[-1:]) if self.at else (key, ())
        change = self._add if on else self._remove
        for head in self.table.get(args, ()):
            change(head + slot if self.pinned else head)


def _text(term) -> str:
    return format_term(clingo_term(term))


# both caches hold what recurs across groundings; a window can hold far more than 65,536 distinct
# instances, so the bound is the million the engines' caches had before they became these
@lru_cache(maxsize=1 << 20)
def _row(sym: clingo.Symbol, width: int) -> tuple:
    """``(atom arguments, head arguments)`` of a ``_fires{k}`` symbol (kept while it recurs)."""
    args = tuple(symbol_to_term(x) for x in sym.arguments)
    return args[:width], args[width:]


@lru_cache(maxsize=1 << 20)
def _symbol(name: str, args: tuple) -> clingo.Symbol:
    """The symbol of ``name(args)`` (kept while it recurs)."""
    return clingo.parse_term(f"{name}({','.join(map(_text, args))})" if args else name)


class PureIncrementalEngine(Engine):
    """``--engine incremental-pure``: the incremental encoding + multi-shot clingo; same answers
    as :class:`ClingoEngine`."""

    name = "incremental-pure"

    def __init__(self, analysis: Analysis, options: EngineOptions = EngineOptions()):
        self.analysis, self.options = analysis, options
        check_window_sizes(analysis, analysis.program.proper_rules)
        sem = options.semantics
        enc = encode_incremental(analysis, sem)
        self.static = StaticTicks(analysis, options) if enc.problems else None
        if enc.problems:
            self.encoding = enc
            return
        # every rule encoded as any other: which domains and operations any encoding may need
        plain = encode_incremental(analysis, sem, frozenset(range(1, len(analysis.program.proper_rules) + 1)))
        operates = ExactProgram(plain.statements, plain.flow).operates
        self.ring = SlotRing(enc.slots, enc.reach, enc.members) if enc.slots else None
        self.trackers: dict = {}  # (encoder, predicate, n) -> instances of that window atom
        self.receivers: dict = {}  # predicate -> instances of time windows over it
        self.expiring: list = []  # instances of time windows
        self.ticking: list = []  # (instances, tuple window size or None) recomputed per tick
        self.tuples: dict = {}  # tuple window size -> predicate -> instances
        for pred, uses in enc.inputs.items():
            for encoder, n in uses:
                inst = self.trackers[(encoder, pred, n)] = encoder.instances(pred, n, self.ring)
                tuple_window = encoder.kind == ast.WindowKind.TUPLE
                if tuple_window:
                    self.tuples.setdefault(n, {}).setdefault(pred, []).append(inst)
                else:
                    self.receivers.setdefault(pred, []).append(inst)
                    self.expiring.append(inst)
                if encoder.modality == ast.BOX:
                    self.ticking.append((inst, n if tuple_window else None))
        self.instances = self.expiring + [i for per in self.tuples.values() for insts in per.values() for i in insts]
        self.arrivals: deque = deque(maxlen=max(self.tuples, default=0) or None)  # (u, k, atom)
        self.now_on: set = set()  # (predicate, args) of input atoms at t
        self.now_changed: dict = {}
        background = analysis.background
        domain = plain.domain | enc.domain
        self.seen = {p: set() for p in domain}  # input atoms seen beyond the background
        self.known = {p: {a[1:] for a in background if a[0] == p} for p in domain}
        self.reader = ModelReader(analysis, options.show)
        self.show_all = options.show == "all"
        self.ext_bg = frozenset(a for a in background if a[0] not in analysis.intensional)
        self.args = [f"--models={options.models}"] + (["--heuristic=Domain"] if options.inertia else [])
        self.diff = ModelDiffer(options)
        self.ctl = None
        self.rules = None  # the program text for the values so far, and whether it calls Python
        self.literals: dict = {}  # (name, args) -> program literal of the external (0: none)
        self.preferred: dict = {}  # literal of a preferred atom -> its condition (inertia)
        self.time = -1
        self.counted = 0  # atoms appended so far
        self.inputs_now: list = []
        self.demoted: frozenset = frozenset()
        self.stats = {"groundings": 0}
        self._use(enc)
        self.bounds = Bounds(analysis.signatures, operates or self.exact.operates)

    def _use(self, enc) -> None:
        """Drive the encoding ``enc`` (grounded at the next evaluation)."""
        self.encoding = enc
        self.exact = ExactProgram(enc.statements, enc.flow)
        self.now_inputs = enc.now_inputs
        self.derived = [Derived(a, a.source[0].at) for a in enc.arrivals]
        self.listeners: dict = {}  # instances of a window atom -> the rules instantiated on its arrivals
        for a, d in zip(enc.arrivals, self.derived):
            self.listeners.setdefault(self.trackers[a.source], []).append(d)
        self.statics = {p for a in enc.arrivals for p in a.statics}
        self.stale = True

    check_values = staticmethod(check_clingo_strings)

    @property
    def count(self) -> int:
        """The atoms appended so far."""
        return self.static.count if self.static is not None else self.counted

    def append(self, t: int, atoms: Sequence[tuple]) -> None:
        if self.static is not None:
            return self.static.append(t, atoms)
        self.check_values(t, atoms)
        self.bounds.note_atoms(atoms)
        self._advance(t)
        receivers, tuples, arrivals, known = self.receivers, self.tuples, self.arrivals, self.known
        k = self.counted
        for atom in atoms:
            k += 1
            pred, args = atom[0], atom[1:]
            if pred in self.statics:
                self._demote(pred)
            dom = known.get(pred)
            if dom is not None and args not in dom:
                dom.add(args)
                self.seen[pred].add(args)
                self.stale = True
            for inst in receivers.get(pred, ()):
                inst.arrive(t, k, atom)
            if pred in self.now_inputs and (pred, args) not in self.now_on:
                self.now_on.add((pred, args))
                self.now_changed[(pred, args + (_NOW,))] = True
            if tuples:
                for n, per_pred in tuples.items():
                    if len(arrivals) >= n:
                        u, j, old = arrivals[-n]
                        for inst in per_pred.get(old[0], ()):
                            inst.leave(u, j, old)
                    for inst in per_pred.get(pred, ()):
                        inst.arrive(t, k, atom)
                arrivals.append((t, k, atom))
        self.counted = k
        if self.show_all:
            self.inputs_now.extend(atoms)

    def _demote(self, pred: str) -> None:
        """A stream atom of a background predicate read by rules instantiated on arrival: from
        now on they are encoded as any other rule."""
        self.demoted |= {a.index for a in self.encoding.arrivals if pred in a.statics}
        self._use(encode_incremental(self.analysis, self.options.semantics, self.demoted))

    def _advance(self, t: int) -> None:
        """Time moves on to t: instances expire, slots are reused, inputs at t start anew."""
        if t == self.time:
            return
        for inst in self.expiring:
            inst.expire(t)
        if self.ring is not None:
            self.ring.move(t)
        for pred, args in self.now_on:
            self.now_changed[(pred, args + (_NOW,))] = False
        self.now_on = set()
        self.inputs_now = []
        self.time = t

    def evaluate(self, t: int) -> Result:
        if self.static is not None:
            return self.static.evaluate(t)
        self._advance(t)
        arrivals, c = self.arrivals, self.counted
        for inst, n in self.ticking:
            inst.tick(t, 0 if n is None or c < n else arrivals[-n][0])
        rules = self.exact.text(self.bounds)
        if self.stale or rules != self.rules:
            self._ground(rules)
        else:
            self._switch()
        if self.options.inertia and self.diff.previous is not None:
            self._prefer(self.diff.previous)
        with self.ctl.solve(yield_=True) as handle:
            return self.diff.result(t, c, tuple(self._read(m, t) for m in handle))

    def _ground(self, rules: tuple) -> None:
        """A fresh Control with the program for the domain seen so far; every external that is
        on is assigned."""
        enc = self.encoding
        self._forget()
        seen = "".join(
            f"_dom_{p}({','.join(map(_text, args))}).\n" if args else f"_dom_{p}.\n"
            for p, atoms in self.seen.items()
            for args in atoms
        )
        ctl = self.ctl = ground(self.args, (enc.frame + rules[0] + seen, rules[1]), self.exact.sites)
        self.rules, self.stale, self.literals, self.preferred = rules, False, {}, {}
        self.stats["groundings"] += 1
        for arrival, derived in zip(self.encoding.arrivals, self.derived):
            derived.read(ctl, arrival)
        # every external that is on counts as switched on
        for inst in self.instances:
            inst.seen, inst.changed = set(), dict.fromkeys(inst.holding, True)
        self.now_changed = dict.fromkeys(((pred, args + (_NOW,)) for pred, args in self.now_on), True)
        if self.ring is not None:
            self.ring.changed = self.ring.state()
        self._switch()

    def _forget(self) -> None:
        """Drop from the domain the atoms seen that no window remembers, once they are most of it
        (a stream of ever new constants keeps a domain of the window's size)."""
        live: dict = {p: set() for p in self.seen}
        for (_, pred, _), inst in self.trackers.items():
            if pred in live:
                live[pred] |= inst.remembered()
        for pred, args in self.now_on:
            if pred in live:
                live[pred].add(args)
        for pred, atoms in self.seen.items():
            if len(atoms) > 2 * len(live[pred]) + 1024:
                gone = atoms - live[pred]
                atoms -= gone
                self.known[pred] -= gone

    def _switch(self) -> None:
        """Assign the externals switched since the last tick."""
        assign, switched = self._assign, self.encoding.switched
        for inst in self.instances:
            changed = inst.changed
            if not changed:
                continue
            listeners = self.listeners.get(inst)
            if listeners:
                seen = inst.seen
                for key, value in changed.items():
                    if value != (key in seen):
                        (seen.add if value else seen.discard)(key)
                        for derived in listeners:
                            derived.switch(key, value)
            if inst.aux in switched:
                assign(((inst.aux, key), value) for key, value in changed.items())
            changed.clear()
        for derived in self.derived:
            assign(((derived.aux, key), value) for key, value in derived.changed.items())
            derived.changed.clear()
        assign(self.now_changed.items())
        self.now_changed.clear()
        if self.ring is not None:
            assign(((name, (slot,)), value) for (name, slot), value in self.ring.changed.items())
            self.ring.changed.clear()

    def _assign(self, changes) -> None:
        """Assign the externals of ``((name, args), value)`` pairs."""
        for (name, args), value in changes:
            lit = self._literal(name, args)
            if lit:
                self.ctl.assign_external(lit, value)

    def _literal(self, name: str, args: tuple, external: bool = True) -> int:
        """The program literal of ``name(args)`` (0: not in the ground program, or not an external)."""
        key = (name, args)
        lit = self.literals.get(key)
        if lit is None:
            atom = self.ctl.symbolic_atoms[_symbol(name, args)]
            lit = 0 if atom is None or (external and not atom.is_external) or atom.is_fact else atom.literal
            if len(self.literals) > 1_000_000:
                self.literals = {}
            self.literals[key] = lit
        return lit

    def _read(self, model: clingo.Model, t: int) -> Model:
        time_of = self.ring.time_of if self.ring is not None else ()
        read = self.reader.read(model.symbols(shown=True), t, time_of)
        return Model(read.atoms.union(self.inputs_now, self.ext_bg), read.pinned) if self.show_all else read

    def _prefer(self, model: Model) -> None:
        """Model inertia (``--heuristic=Domain``): the previous answer's atoms are decided first,
        and true. Each atom's heuristic is added once per Control, under a condition (an external)
        that is on while the atom was in the previous answer."""
        intensional, ring = self.analysis.intensional, self.ring
        wanted = [(a[0], a[1:] + (_NOW,)) for a in model.atoms if a[0] in intensional]
        if ring is not None:
            wanted += [(a[0], a[1:] + (ring.slot_of[u],)) for a, u in model.pinned if u in ring.slot_of]
        lits = {lit for lit in (self._literal(p, args, external=False) for p, args in wanted) if lit}
        ctl, preferred = self.ctl, self.preferred
        new = [lit for lit in lits if lit not in preferred]
        if new:
            with ctl.backend() as b:
                for lit in new:
                    cond = b.add_atom(clingo.Function("_prefer", [clingo.Number(lit)]))
                    b.add_external(cond, clingo.TruthValue.False_)
                    b.add_heuristic(lit, clingo.backend.HeuristicType.Level, 1, 0, [cond])
                    b.add_heuristic(lit, clingo.backend.HeuristicType.Sign, 1, 0, [cond])
                    preferred[lit] = [cond, False]
        for lit, entry in preferred.items():
            on = lit in lits
            if entry[1] != on:
                ctl.assign_external(entry[0], on)
                entry[1] = on


class StaticTicks(ClingoEngine):
    """The static encoding solved afresh at every tick, for a program whose times cannot be
    slots; with ``inertia`` the previous answer's atoms are preferred."""

    name = "incremental-pure"

    def __init__(self, analysis: Analysis, options: EngineOptions):
        super().__init__(analysis, options)
        self.diff = ModelDiffer(options)
        if options.inertia:
            self.arguments = self.arguments + ["--heuristic=Domain"]

    def _control(self, t: int, observer=None) -> clingo.Control:
        ctl = super()._control(t, observer)
        if self.options.inertia and self.diff.previous is not None:
            prefer_previous(ctl, self.diff.previous, t, self.analysis.intensional)
        return ctl

    def evaluate(self, t: int) -> Result:
        return self.diff.result(t, self.count, tuple(self.iter_models(t)))
