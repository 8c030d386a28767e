"""Can a program be evaluated in independent shards of its stream, and on which key?

A *key* gives each keyed predicate an argument position; the stream is partitioned by the value
there, background facts go to every shard. The split is sound when no tuple window is used (it
counts atoms across shards); in every rule, all body atoms over keyed predicates (negated ones
included), and a keyed head, carry the same variable at their key position; and every predicate
derived from keyed atoms is keyed (a 0-ary one cannot be). Stream predicates that cannot be keyed
may be *broadcast* (sent to every shard, like background). Then every ground rule instance that
uses stream data reads one shard, and the answer of the whole stream is the union (per answer
stream: the product) of the shards' answers.

>>> from ticker_py.syntax import parse_program
>>> from ticker_py.analysis import analyse
>>> plan = shard_plan(analyse(parse_program("q(A,B) :- p(A,B) in [3].")))
>>> plan.key
{'p': 0, 'q': 0}
>>> shard_plan(analyse(parse_program("q(A,C) :- p(A,B) in [3], p(B,C) in [3]."))).reason
"no key position fits every rule: rule 'q(A,C) :- p(A,B) in [3], p(B,C) in [3].' joins keyed atoms on different variables"
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field

from .. import ast
from ..errors import Diagnostic, UsageError
from ..process import paused_gc
from . import Analysis

__all__ = ["ShardPlan", "TimePlan", "plan_for", "shard_plan", "time_plan", "sharding_report", "shard_of"]

MAX_STEPS = 200_000  # search budget: key assignments tried
MAX_SUBSET_WORK = 50_000  # search budget: smaller key sets tried x rules


@dataclass(frozen=True)
class ShardPlan:
    """``key`` maps keyed predicates to their key argument (0-based); None if not shardable."""

    key: dict | None
    reason: str = ""
    broadcast: frozenset = field(default_factory=frozenset)

    @property
    def shardable(self) -> bool:
        return self.key is not None


@dataclass(frozen=True)
class TimePlan:
    """Can the stream be cut into time ranges [T0, T1), each evaluated from its own reasoner?

    The answer at t reads only the stream in [t - ``lookback``, t] and the last ``tuple_lookback``
    atoms, so a range evaluated from T0 - lookback (or from the time of atom c(T0) - tuple_lookback,
    if earlier) gives the single run's answers on [T0, T1). ``reason``: why not.
    """

    lookback: int | None
    tuple_lookback: int
    reason: str = ""

    @property
    def shardable(self) -> bool:
        return self.lookback is not None


_INERTIA = "inertia=True (--inertia) keeps answers from earlier time points"


def time_plan(analysis: Analysis, inertia: bool = False) -> TimePlan:
    """The time plan of a program (``inertia``: the run keeps answers across time points)."""
    if analysis.lookback is None:
        return TimePlan(None, analysis.tuple_lookback, "an @-atom without window reads the whole past")
    if inertia:
        return TimePlan(None, analysis.tuple_lookback, _INERTIA)
    return TimePlan(analysis.lookback, analysis.tuple_lookback)


def _refuse(reason: str) -> UsageError:
    return UsageError(
        Diagnostic(
            f"this program cannot be evaluated in shards: {reason}",
            notes=("run it unsharded: run or Reasoner, without shards= and spark= (--shards/--spark)",),
        )
    )


def plan_for(analysis: Analysis, shard_by: str = "auto", inertia: bool = False) -> tuple:
    """``(key plan or None, time plan or None)`` for ``shard_by`` (see :data:`~ticker_py.spec.SHARD_BY`), or
    :class:`UsageError` with the reason the program cannot be sharded that way."""
    keys: ShardPlan = shard_plan(analysis)
    times: TimePlan = time_plan(analysis, inertia)
    if inertia and shard_by != "time":  # the key shards would each keep their own earlier answers
        keys = ShardPlan(None, _INERTIA)
    if shard_by == "auto":  # by time first: a time cell's answers need no merge with other cells'
        if times.shardable:
            return None, times
        if keys.shardable:
            return keys, None
        raise _refuse(f"{keys.reason}; and not by time: {times.reason}")
    if shard_by in ("key", "both") and not keys.shardable:
        raise _refuse(keys.reason)
    if shard_by in ("time", "both") and not times.shardable:
        raise _refuse(f"not by time: {times.reason}")
    return (keys if shard_by != "time" else None), (times if shard_by != "key" else None)


def _keyed_atoms(rule: ast.Rule, keyed) -> list:
    """The rule's body atoms over keyed predicates, then its head atom if that is keyed too."""
    atoms = [
        lit.element.atom
        for lit in rule.body
        if type(lit.element) is not ast.Comparison and lit.element.atom.predicate in keyed
    ]
    if atoms and rule.head is not None and rule.head.atom.predicate in keyed:
        atoms.append(rule.head.atom)
    return atoms


def _derivations(rules) -> tuple:
    """``(heads, bodies)``: per body predicate the heads of the rules it occurs in, per head
    predicate the body predicates of its rules."""
    heads, bodies = defaultdict(set), defaultdict(set)
    for rule in rules:
        if rule.head is not None:
            for lit in rule.body:
                if type(lit.element) is not ast.Comparison:
                    heads[lit.element.atom.predicate].add(rule.head.atom.predicate)
                    bodies[rule.head.atom.predicate].add(lit.element.atom.predicate)
    return heads, bodies


def _closure(start, edges) -> set:
    """Every node reachable from ``start`` along ``edges`` (node -> successors), ``start`` included."""
    seen, todo = set(start), list(start)
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def shard_plan(analysis: Analysis) -> ShardPlan:
    """A key for sharding the program's stream, or the reason there is none: the largest set of
    keyed stream predicates first, then smaller ones (the others broadcast), within a budget."""
    with paused_gc():  # many sets, no cycles: see paused_gc
        return _shard_plan(analysis)


def _shard_plan(analysis: Analysis) -> ShardPlan:
    if analysis.renamed:  # key shards split the stream by predicate name
        name = sorted(set(analysis.renamed.values()))[0]
        return ShardPlan(None, f"'{name}' is used with several arities (cut by time instead)")
    if analysis.tuple_lookback:
        return ShardPlan(None, "a tuple window counts atoms across all shards")
    background = {a[0] for a in analysis.background}
    streamed = sorted(set(analysis.extensional) - background)
    if not streamed:
        return ShardPlan(None, "the program reads no stream predicate")
    rules = analysis.program.proper_rules
    heads, bodies = _derivations(rules)
    key, first_reason = _find_key(analysis, heads, set(streamed))
    if key is not None:
        return ShardPlan(key, "")
    # a predicate from which a 0-ary one is derived can never be keyed
    zero = [p for p, n in analysis.signatures.items() if n == 0]
    never = _closure(zero, bodies)
    candidates = [p for p in streamed if p not in never]
    tries = budget = max(1, MAX_SUBSET_WORK // max(1, len(rules)))
    for size in range(len(candidates), 0, -1):
        for subset in itertools.combinations(candidates, size):
            if budget <= 0:
                return ShardPlan(None, f"{first_reason} (search for a smaller key set stopped after {tries} tries)")
            budget -= 1
            key, _ = _find_key(analysis, heads, set(subset), explain=False)
            if key is not None:
                return ShardPlan(key, "", frozenset(streamed) - frozenset(subset))
    return ShardPlan(None, first_reason)


def _find_key(analysis: Analysis, heads: dict, streamed: set, explain: bool = True):
    """A key for these keyed stream predicates: ``(key, "")`` or ``(None, reason)``."""
    rules = analysis.program.proper_rules
    keyed = _closure(streamed, heads)  # derived from the keyed stream predicates
    zero = sorted(p for p in keyed if analysis.signatures[p] == 0)
    if zero:
        return None, f"'{zero[0]}/0' is derived from stream data but has no argument to key on"
    guessed = sorted({p for e in analysis.negative_cycle for p in (e.head, e.body)} - keyed)
    if guessed:
        return None, (f"'{guessed[0]}' is guessed (on a negative cycle) but not keyed: shards could choose differently")
    groups = [atoms for atoms in (_keyed_atoms(r, keyed) for r in rules) if atoms]
    key = _solve(sorted(keyed), {p: analysis.signatures[p] for p in keyed}, groups)
    if isinstance(key, dict):
        return key, ""
    if key == "budget":
        return None, "too many predicates to search for a key"
    if not explain:
        return None, ""
    for rule in rules:
        atoms = _keyed_atoms(rule, keyed)
        arity = {a.predicate: len(a.args) for a in atoms}
        if atoms and not isinstance(_solve(sorted(arity), arity, [atoms]), dict):
            return None, f"no key position fits every rule: rule '{rule}' joins keyed atoms on different variables"
    return None, "no key position fits every rule"


def _var(atom: ast.Atom, position: int) -> str | None:
    arg = atom.args[position]
    return arg.name if isinstance(arg, ast.Variable) else None


def _solve(preds: list, arity: dict, groups: list):
    """The first key (in the order of ``preds`` and positions) under which the keyed atoms of
    every group carry one variable at their key positions; None if there is none, "budget" if
    the search ran out of steps. Arc consistency, then depth-first search with forward checking:
    the first key that trying every assignment in order finds, in linear time on usual programs."""
    domains = {p: set(range(arity[p])) for p in preds}
    arcs = defaultdict(list)  # pred -> [(its atom, other pred, other atom)]
    for atoms in groups:
        for atom in atoms:
            domains[atom.predicate] = {i for i in domains[atom.predicate] if _var(atom, i) is not None}
        for a, b in zip(atoms, atoms[1:]):
            arcs[a.predicate].append((a, b.predicate, b))
            arcs[b.predicate].append((b, a.predicate, a))

    trail: list = []  # (pred, its domain before a change), for undo

    def propagate(todo) -> bool:
        queued = set(todo)
        while todo:
            q = todo.pop()
            queued.discard(q)
            for other, p, atom in arcs.get(q, ()):  # p's atom must agree with q's other
                names = {_var(other, j) for j in domains[q]}
                keep = {i for i in domains[p] if _var(atom, i) in names}
                if keep == domains[p]:
                    continue
                trail.append((p, domains[p]))
                domains[p] = keep
                if not keep:
                    return False
                if p not in queued:
                    queued.add(p)
                    todo.append(p)
        return True

    if any(not d for d in domains.values()) or not propagate(list(domains)):
        return None
    frames: list = []  # per assigned pred: [values, next index, trail mark]
    steps, k = 0, 0
    while k < len(preds):
        if k == len(frames):
            frames.append([sorted(domains[preds[k]]), 0, len(trail)])
        values, index, mark = frames[k]
        while len(trail) > mark:  # undo the previous value's propagation
            q, old = trail.pop()
            domains[q] = old
        if index == len(values):  # every value failed: back to the previous pred
            frames.pop()
            k -= 1
            if k < 0:
                return None
            continue
        frames[k][1] += 1
        steps += 1
        if steps > MAX_STEPS:
            return "budget"
        if len(domains[preds[k]]) == 1:  # nothing changes: still arc consistent
            k += 1
            continue
        trail.append((preds[k], domains[preds[k]]))
        domains[preds[k]] = {values[index]}
        if propagate([preds[k]]):
            k += 1
    return {p: next(iter(domains[p])) for p in preds}


def shard_of(atom: tuple, key: dict, shards: int) -> int | None:
    """The shard of a stream atom (None: not keyed, goes to every shard)."""
    pos = key.get(atom[0])
    if pos is None:
        return None
    from zlib import crc32

    from ..values import format_term

    return crc32(format_term(atom[pos + 1]).encode()) % shards


def sharding_report(analysis: Analysis) -> str:
    """Three lines for ``ticker check``: key sharding, time sharding, the plan ``--shard-by auto`` picks."""
    plan = shard_plan(analysis)
    if not plan.shardable:
        line = f"sharding: no ({plan.reason})"
    else:
        keys = ", ".join(f"{p}/{analysis.signatures[p]} argument {i + 1}" for p, i in sorted(plan.key.items()))
        extra = f"; broadcast to every shard: {', '.join(sorted(plan.broadcast))}" if plan.broadcast else ""
        line = f"sharding: yes, key: {keys}{extra}"
    times = time_plan(analysis)
    if times.shardable:
        tuples = f" and the last {times.tuple_lookback} atoms" if times.tuple_lookback else ""
        line += f"\ntime sharding: yes, each range reads {times.lookback} time points before it{tuples}"
    else:
        line += f"\ntime sharding: no ({times.reason})"
    auto = "key" if plan.shardable else "time" if times.shardable else "none: the program cannot be sharded"
    return line + f"\nshard plan (--shard-by auto): {auto}"
