"""The native engine's wiring, built once from the analysis: a :class:`~.store.Store` per relation a
rule reads (a predicate under one window kind and modality), a :class:`~.plan.RulePlan` per rule."""

from __future__ import annotations

from ... import ast
from ...analysis import Analysis
from ...errors import Diagnostic, EngineUnsupported
from ...windows import Windows
from .boxes import PinCover
from .plan import RulePlan, StoreLiteral, compile_rule, constants, delta_groups, unsupported
from .store import CountedStore, Store, acceptor, atom_key

__all__ = ["Wiring", "counted_predicates", "cap_counted_horizon"]

NOW, DIAMOND, BOX, AT = ast.NOW, ast.DIAMOND, ast.BOX, ast.AT
TUPLE = ast.WindowKind.TUPLE


def cap_counted_horizon(h: tuple, cap: int) -> tuple:
    """A ``(time, count)`` horizon whose time part is no later than ``cap``."""
    return (h[0] if h[0] < cap else cap, h[1])


def counted_predicates(rules, intensional) -> set:
    """The derived predicates whose facts can hold by count: a rule for them reads a
    tuple window or another such predicate in a positive body literal."""
    counted: set = set()
    changed = True
    while changed:
        changed = False
        for r in rules:
            q = r.head.atom.predicate
            if q not in counted and any(
                lit.element.atom.predicate in counted
                or (lit.element.atom.predicate not in intensional and lit.element.window_kind is TUPLE)
                for lit in r.body
                if not lit.negated and not lit.is_comparison
            ):
                counted.add(q)
                changed = True
    return counted


class Wiring:
    """The stores, their feeds and the rule plans of one program.

    Feeds and views are lists of ``(modality, n, store)`` (``n`` the window's reach,
    :meth:`ticker_py.windows.Windows.reach`: time points before t, or atoms; ``None`` for an
    unwindowed @-atom):

    - ``ext_feeds[p]``: input predicate p read now (``NOW``, n 0) or through a time window;
    - ``tuple_feeds[p]``: p through a tuple window (diamond and @; boxes are fed from runs);
      ``tuple_sources`` lists every tuple-window store as ``(modality, p, n, store)``;
    - ``views[q][modality]``: derived predicate q through a window, as ``(n, store)``.
    """

    def __init__(self, analysis: Analysis, windows: Windows):
        self.analysis, self.windows = analysis, windows
        self.sigs = analysis.signatures
        self.intensional = analysis.intensional
        self.background: dict = {}  # predicate -> its background atoms
        for atom in analysis.background:
            self.background.setdefault(atom[0], []).append(atom)
        self.background_sets = {p: frozenset(v) for p, v in self.background.items()}
        self.ext_background = frozenset(a for p, v in self.background.items() if p not in self.intensional for a in v)
        rules = list(analysis.program.proper_rules)
        for r in rules:
            if r.head is None:
                raise EngineUnsupported(Diagnostic("the native engine cannot run constraints", r.location))
        for r in analysis.interval_rules:
            raise unsupported(r, "intervals are supported in facts only")
        self.scc_of = {p: i for i, comp in enumerate(analysis.strata) for p in comp}
        self.pinned = {r.head.atom.predicate for r in rules if r.head.time is not None}
        self.counted = counted_predicates(rules, self.intensional)
        # q -> how a view of q caps a horizon at a tick (pairs for counted q)
        self.horizon_cap = {q: cap_counted_horizon if q in self.counted else min for q in self.intensional}
        self.stores: list = []
        self.sources: dict = {}
        self.moving, self.pins, self.now_view = {}, {}, {}
        self.ext_feeds: dict = {}
        self.tuple_feeds: dict = {}
        self.tuple_sources: list = []
        self.box_preds: set = set()  # input predicates read through a box (their runs are kept)
        self.views: dict = {}
        self.readers: dict = {}  # id of an input store -> the atoms of the literals reading it
        self.groups = delta_groups()  # the deltas grouped by a constant, shared by the plans
        for q in sorted(self.intensional):
            scc, arity, c = self.scc_of[q], self.sigs[q], q in self.counted
            self.moving[q] = self._store(f"{q}", "atom", arity, scc, counted=c)
            self.views[q] = {DIAMOND: [], AT: [], BOX: []}
            if q in self.pinned:
                self.pins[q] = self._store(f"{q}@", "at", arity, scc, counted=c)
                self.now_view[q] = self._store(f"now {q}", "atom", arity, scc, counted=c)
            else:
                self.now_view[q] = self.moving[q]
        self.plans: list = [[] for _ in analysis.strata]
        for r in rules:
            self.plans[self.scc_of[r.head.atom.predicate]].append(self._compile(r))
        for feeds in self.ext_feeds.values():
            for mod, _, store in feeds:
                if mod is not BOX:
                    store.accept = acceptor(self.readers[id(store)], atom_key)
        self.component_stores = [[] for _ in self.plans]  # each component's stores, in creation order
        for s in self.stores:
            if s.scc is not None:
                self.component_stores[s.scc].append(s)
        # boxes over derived predicates: q's pins counted by q's covers
        self.covers: dict = {q: [] for q in self.intensional}
        self.boxes_of_component: dict = {}  # scc -> [(q, box store, cover)]
        for q, views in self.views.items():
            for n, store in views[BOX]:
                cover = PinCover(n)
                self.covers[q].append(cover)
                self.boxes_of_component.setdefault(self.scc_of[q], []).append((q, store, cover))

    def _store(self, name, shape, arity, scc=None, stored=True, counted=False) -> Store:
        s = (CountedStore if counted else Store)(name, shape, arity, scc, stored)
        self.stores.append(s)
        return s

    def _source(self, el: ast.ExtendedAtom, used_as_delta_only: bool) -> tuple:
        """The store an extended atom reads, and whether it is a box."""
        p, mod, arity = el.atom.predicate, el.modality, self.sigs[el.atom.predicate]
        n = self.windows.reach(el.window)
        now = mod is NOW or (mod in (DIAMOND, BOX) and n == 0)
        shape = "at" if mod is AT else "atom"
        if p in self.intensional:
            if now:
                return self.now_view[p], False
            if mod is DIAMOND and p not in self.pinned:
                return self.moving[p], False
            store = self.sources.get((p, mod, n))
            if store is None:
                store = self._store(f"{p} {mod} {n}", shape, arity, self.scc_of[p], counted=p in self.counted)
                self.sources[(p, mod, n)] = store
                self.views[p][mod].append((n, store))
            return store, mod is BOX
        kind = el.window_kind
        if kind is not TUPLE and now:
            kind, mod, n = ast.WindowKind.NONE, NOW, 0
        key = (p, kind, mod, n)
        store = self.sources.get(key)
        if store is None:
            store = self._store(f"{p} {kind} {mod} {n}", shape, arity, stored=False, counted=kind is TUPLE)
            self.sources[key] = store
            if mod is BOX:
                self.box_preds.add(p)
            if kind is TUPLE:
                self.tuple_sources.append((mod, p, n, store))
                if mod is not BOX:
                    self.tuple_feeds.setdefault(p, []).append((mod, n, store))
            else:
                self.ext_feeds.setdefault(p, []).append((mod, n, store))
        if not used_as_delta_only:
            store.stored = True
        return store, mod is BOX

    def _compile(self, rule: ast.Rule) -> RulePlan:
        positives = [l for l in rule.body if not l.negated and not l.is_comparison]
        negated = any(l.negated for l in rule.body)
        single = len(positives) == 1 and not negated
        body = []
        for lit in rule.body:
            if lit.is_comparison:
                body.append((lit.element, lit.negated))
                continue
            el = lit.element
            # a store is only a delta feed if this is its rule's sole positive literal
            store, box = self._source(el, used_as_delta_only=single and not lit.negated)
            if el.atom.predicate not in self.intensional:
                self.readers.setdefault(id(store), []).append(constants(el.atom.args))
            body.append(StoreLiteral(store, el.atom, el.time, lit.negated, box))
        q = rule.head.atom.predicate
        target = self.pins[q] if rule.head.time is not None else self.moving[q]
        plan = compile_rule(rule, body, target, groups=self.groups)
        if plan.transient and plan.full_store is not None:
            plan.full_store.stored = True
        return plan
