"""Can a program be evaluated in independent shards of its stream, and on which key?

A *key* assigns each keyed predicate an argument position. The stream is partitioned by the
value at the key position of each atom; background facts are replicated to every shard.
The split is sound when

- no tuple window is used (tuple windows count atoms across all shards);
- in every rule, all body atoms over keyed predicates (negated ones included) carry the
  same variable at their key position, and a keyed head carries it too;
- every predicate derived from keyed atoms is keyed (a 0-ary one cannot be: it would
  aggregate across shards).

Stream predicates that cannot be keyed may be *broadcast* (sent to every shard, like
background); what is derived only from broadcast and background atoms is computed in every
shard alike. The search tries the largest set of keyed stream predicates first.

Then every ground rule instance that uses stream data reads one shard only, and the answer
of the whole stream is the union (per answer stream: the product) of the shards' answers.

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
from dataclasses import dataclass, field
from typing import Optional

from .. import ast
from . import Analysis

__all__ = ["ShardPlan", "shard_plan", "sharding_report", "shard_of"]

MAX_ASSIGNMENTS = 200_000


@dataclass(frozen=True)
class ShardPlan:
    """``key`` maps keyed predicates to their key argument (0-based); None if not shardable."""

    key: Optional[dict]
    reason: str = ""
    broadcast: frozenset = field(default_factory=frozenset)

    @property
    def shardable(self) -> bool:
        return self.key is not None


def _streamed(analysis: Analysis) -> set:
    background = {a[0] for a in analysis.background}
    return set(analysis.extensional) - background


def _keyed_atoms(rule: ast.Rule, keyed: set):
    for lit in rule.body:
        if not lit.is_comparison and lit.element.atom.predicate in keyed:
            yield lit.element.atom


def _derived_keyed(analysis: Analysis, streamed: set) -> set:
    """Predicates whose atoms depend on stream data (a fixpoint over the rules)."""
    keyed = set(streamed)
    changed = True
    while changed:
        changed = False
        for rule in analysis.program.proper_rules:
            if rule.head is None or rule.head.atom.predicate in keyed:
                continue
            if any(True for _ in _keyed_atoms(rule, keyed)):
                keyed.add(rule.head.atom.predicate)
                changed = True
    return keyed


def _rule_fits(rule: ast.Rule, key: dict) -> bool:
    variables = set()
    for atom in _keyed_atoms(rule, set(key)):
        arg = atom.args[key[atom.predicate]]
        if not isinstance(arg, ast.Variable):
            return False
        variables.add(arg.name)
    if len(variables) > 1:
        return False
    if rule.head is not None and rule.head.atom.predicate in key and variables:
        arg = rule.head.atom.args[key[rule.head.atom.predicate]]
        return isinstance(arg, ast.Variable) and arg.name in variables
    return True


def shard_plan(analysis: Analysis) -> ShardPlan:
    """Find a key for sharding the program's stream, or the reason there is none."""
    if analysis.tuple_lookback:
        return ShardPlan(None, "a tuple window counts atoms across all shards")
    streamed = sorted(_streamed(analysis))
    if not streamed:
        return ShardPlan(None, "the program reads no stream predicate")
    first_reason = ""
    for size in range(len(streamed), 0, -1):
        for subset in itertools.combinations(streamed, size):
            key, reason = _find_key(analysis, set(subset))
            if key is not None:
                return ShardPlan(key, "", frozenset(streamed) - frozenset(subset))
            first_reason = first_reason or reason
    return ShardPlan(None, first_reason)


def _find_key(analysis: Analysis, streamed: set):
    """A key for these keyed stream predicates: ``(key, "")`` or ``(None, reason)``."""
    keyed = _derived_keyed(analysis, streamed)
    zero = sorted(p for p in keyed if analysis.signatures[p] == 0)
    if zero:
        return None, f"'{zero[0]}/0' is derived from stream data but has no argument to key on"
    guessed = sorted({p for e in analysis.negative_cycle for p in (e.head, e.body)} - keyed)
    if guessed:
        return None, (f"'{guessed[0]}' is guessed (on a negative cycle) but not keyed: shards could"
                      " choose differently")
    preds = sorted(keyed)
    rules = [r for r in analysis.program.proper_rules if any(True for _ in _keyed_atoms(r, keyed))]
    choices = [range(analysis.signatures[p]) for p in preds]
    total = 1
    for c in choices:
        total *= len(c)
    if total > MAX_ASSIGNMENTS:
        return None, f"too many predicates to search for a key ({total} assignments)"
    for combo in itertools.product(*choices):
        key = dict(zip(preds, combo))
        if all(_rule_fits(r, key) for r in rules):
            return key, ""
    culprit = next((r for r in rules if not any(
        _rule_fits(r, dict(zip(preds, combo))) for combo in itertools.product(*choices))), None)
    detail = f": rule '{culprit}' joins keyed atoms on different variables" if culprit else ""
    return None, f"no key position fits every rule{detail}"


def shard_of(atom: tuple, key: dict, shards: int) -> Optional[int]:
    """The shard of a stream atom (None: not keyed, goes to every shard)."""
    pos = key.get(atom[0])
    if pos is None:
        return None
    from zlib import crc32

    from ..values import format_term

    return crc32(format_term(atom[pos + 1]).encode()) % shards


def sharding_report(analysis: Analysis) -> str:
    """One line for ``ticker check``."""
    plan = shard_plan(analysis)
    if not plan.shardable:
        return f"sharding: no ({plan.reason})"
    keys = ", ".join(f"{p}/{analysis.signatures[p]} argument {i + 1}" for p, i in sorted(plan.key.items()))
    extra = f"; broadcast to every shard: {', '.join(sorted(plan.broadcast))}" if plan.broadcast else ""
    return f"sharding: yes, key: {keys}{extra}"
