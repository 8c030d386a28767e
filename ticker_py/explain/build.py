"""Explanations over a :class:`World`: well-founded supports (why) and failing rule instances (why not).

A rule's instances come from unifying its head with the atom asked about, then joining its body
literal by literal in source order (a literal whose variables are not yet bound waits).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from .. import ast
from ..errors import InternalError
from ..semantics import FutureHeads, TupleScope
from ..values import format_atom, format_term, to_ast_term
from .tree import Node, node
from .world import UNDEF, Occurrence, Span, World, bindable, compare, is_bound, match, same, value

__all__ = ["Builder", "MAX_CANDIDATES", "WHY_NOT_DEPTH"]

#: why-not lists at most this many failing instances per atom (the rest are counted)
MAX_CANDIDATES = 20
#: how deep why-not follows a failing derived literal into the why-not of its atom
WHY_NOT_DEPTH = 2


@dataclass(frozen=True)
class Lit:
    """A body literal evaluated under a substitution: holds or not, with its evidence."""

    index: int
    literal: ast.Literal
    holds: bool
    text: str
    span: Span | None = None
    atom: tuple | None = None
    time: int | None = None
    occ: tuple = ()
    note: str = ""

    def info(self) -> dict:
        """The literal's node info: which literal, whether it holds, and where it reads."""
        what = dict(index=self.index, literal=self.text, negated=self.literal.negated, holds=self.holds)
        return what | dict(span=self.span, atom=self.atom, at=self.time)

    def missing(self) -> int:
        """The first time point of the span where the atom does not hold (a failing box)."""
        have = {o.time for o in self.occ}
        return next(u for u in range(self.span.lo, self.span.hi + 1) if u not in have)


def subst_term(term, sigma):
    """The term with bound variables replaced (arithmetic over bound values evaluated)."""
    if isinstance(term, ast.Variable):
        return to_ast_term(sigma[term.name]) if term.name in sigma else term
    if isinstance(term, ast.Function):
        return ast.Function(term.name, tuple(subst_term(a, sigma) for a in term.args))
    if isinstance(term, ast.BinOp):
        v = value(term, sigma)
        if v is not UNDEF:
            return to_ast_term(v)
        return ast.BinOp(term.op, subst_term(term.left, sigma), subst_term(term.right, sigma))
    return term


def subst_literal(lit: ast.Literal, sigma) -> str:
    el = lit.element
    if isinstance(el, ast.Comparison):
        el = ast.Comparison(el.op, subst_term(el.left, sigma), subst_term(el.right, sigma))
    else:
        atom = ast.Atom(el.atom.predicate, tuple(subst_term(a, sigma) for a in el.atom.args))
        time = None if el.time is None else subst_term(el.time, sigma)
        el = ast.ExtendedAtom(atom, el.modality, el.window, time)
    return str(ast.Literal(el, lit.negated))


def binding_text(sigma) -> str:
    return ", ".join(f"{k}={format_term(v)}" for k, v in sorted(sigma.items()))


def _instance(rule: ast.Rule, sigma) -> str:
    """A rule instance as a node's text: the rule, its binding, where it is written."""
    bind = f"  [{binding_text(sigma)}]" if sigma else ""
    where = "" if rule.location is None else f"  ({rule.location.file}:{rule.location.line})"
    return f"{rule}{bind}{where}"


def _assigned(el: ast.Comparison, sigma):
    """``(X, term)`` when ``el`` is ``X = term`` (either way round) with X unbound and term bound."""
    if el.op == "=":
        for var, other in ((el.left, el.right), (el.right, el.left)):
            if isinstance(var, ast.Variable) and var.name not in sigma and is_bound(other, sigma):
                return var, other
    return None


def ready(lit: ast.Literal, sigma) -> bool:
    """Can this literal be evaluated now (its unbound variables, if any, are ones it binds)?"""
    el = lit.element
    if lit.negated:
        return ast.element_variables(el) <= sigma.keys()
    if isinstance(el, ast.Comparison):
        return _assigned(el, sigma) is not None or is_bound(el.left, sigma) and is_bound(el.right, sigma)
    return all(bindable(a, sigma) for a in el.atom.args) and (el.time is None or bindable(el.time, sigma))


class Builder:
    """Explanations over one world (one answer stream at one tick)."""

    def __init__(self, world: World, negation: World | None = None, ignore_negation: bool = False):
        self.world = world
        self.negation = world if negation is None else negation  # where `not` literals are read
        self.ignore_negation = ignore_negation
        analysis = world.analysis
        self.rules = analysis.program.rules
        self.by_head: dict = {}
        for i, rule in enumerate(self.rules):
            if rule.head is not None and not rule.is_fact:
                self.by_head.setdefault(rule.head.atom.predicate, []).append(i)
        on_cycle = {e.head for e in analysis.negative_cycle}
        self.choice = frozenset(p for comp in analysis.strata if on_cycle & set(comp) for p in comp)
        self.assumptions: dict = {}
        self._nodes: dict = {}  # shared nodes by key

    def unify_head(self, rule: ast.Rule, atom: tuple, u: int):
        """``(sigma, deferred)``: the head matched against atom at u (arithmetic deferred), or None."""
        head = rule.head
        if head.atom.predicate != atom[0] or len(head.atom.args) != len(atom) - 1:
            return None
        sigma, deferred = {}, []
        pairs = list(zip(head.atom.args, atom[1:]))
        if head.time is None:
            if u != self.world.t:
                return None
        else:
            pairs.append((head.time, u))
        for term, g in pairs:
            if bindable(term, sigma):
                sigma = match(term, g, sigma)
                if sigma is None:
                    return None
            else:
                deferred.append((term, g))
        return sigma, deferred

    def search(self, rule: ast.Rule, sigma: dict, deferred=()):
        """``(sigma, lits, failed)`` for every instance extending sigma: all literals hold
        (``failed`` False), or the branch stops at the first literal that fails (True)."""
        body = rule.body

        def rec(todo, sigma, lits):
            if not todo:
                if all(same(value(term, sigma), g) for term, g in deferred):
                    yield sigma, lits, False
                return
            pick = next((i for i in todo if ready(body[i], sigma)), None)
            if pick is None:
                raise InternalError(f"cannot bind the variables of {rule}")
            rest = [i for i in todo if i != pick]
            results, failure = self.evaluate(pick, body[pick], sigma)
            if failure is not None:
                yield sigma, lits + [failure], True
                return
            for s2, lit in results:
                yield from rec(rest, s2, lits + [lit])

        yield from rec(list(range(len(body))), sigma, [])

    def holding(self, rule: ast.Rule, sigma=None, deferred=()):
        """``(sigma, lits)`` for every instance extending ``sigma`` whose body holds."""
        return ((s, lits) for s, lits, failed in self.search(rule, sigma or {}, deferred) if not failed)

    def heads(self, rule: ast.Rule):
        """``(atom, u)``: the head of every instance of ``rule`` whose body holds (and arithmetic is defined)."""
        head = rule.head
        for sigma, _ in self.holding(rule):
            atom = self._ground_atom(head.atom, sigma)
            u = self.world.t if head.time is None else value(head.time, sigma)
            if atom is not None and type(u) is int:
                yield atom, u

    def evaluate(self, i: int, lit: ast.Literal, sigma: dict):
        """``(results, failure)``: the ways literal i holds under sigma, or why it fails."""
        el = lit.element
        if isinstance(el, ast.Comparison):
            return self._comparison(i, lit, sigma)
        if lit.negated:
            atom = self._ground_atom(el.atom, sigma)
            time = None if el.time is None else value(el.time, sigma)
            text = subst_literal(lit, sigma)
            if atom is None or time is UNDEF:
                return [], Lit(i, lit, False, text, note="undefined arithmetic: the instance does not exist")
            holds, span, occ = self.negation.witnesses(el, atom, time)
            holds = holds and not self.ignore_negation
            result = Lit(i, lit, not holds, text, span, atom, time, tuple(occ))
            return ([(sigma, result)], None) if not holds else ([], result)
        return self._positive(i, lit, sigma)

    def _ground_atom(self, atom: ast.Atom, sigma):
        args = [value(a, sigma) for a in atom.args]
        return None if any(a is UNDEF for a in args) else (atom.predicate, *args)

    def _comparison(self, i, lit, sigma):
        el = lit.element
        assigned = None if lit.negated else _assigned(el, sigma)
        if assigned is not None:
            v = value(assigned[1], sigma)
            if v is not UNDEF:
                s2 = {**sigma, assigned[0].name: v}
                return [(s2, Lit(i, lit, True, subst_literal(lit, s2)))], None
        text = subst_literal(lit, sigma)  # not before: an assignment that binds has its own text
        a, b = value(el.left, sigma), value(el.right, sigma)
        if a is UNDEF or b is UNDEF:
            return [], Lit(i, lit, False, text, note="undefined arithmetic")
        holds = compare(el.op, a, b) != lit.negated
        result = Lit(i, lit, holds, text)
        return ([(sigma, result)], None) if holds else ([], result)

    def _positive(self, i, lit, sigma):
        el, w = lit.element, self.world
        span = w.span(el)
        out = []
        pattern = ast.Function(el.atom.predicate, el.atom.args)  # the atom as a term: matched whole
        for atom in w.candidates(el):
            s = match(pattern, atom, sigma)
            if s is None:
                continue
            if el.modality != ast.AT:
                times = [None]
            elif is_bound(el.time, s):
                times = [value(el.time, s)]
            elif atom in w.background:
                times = range(span.lo, span.hi + 1)
            else:
                times = sorted({o.time for o in w.occurrences(atom, el, span)})
            for u in times:
                s2 = s if u is None else match(el.time, u, s)
                if s2 is None:
                    continue
                holds, _, occ = w.witnesses(el, atom, u)
                if holds:
                    out.append((s2, Lit(i, lit, True, subst_literal(lit, s2), span, atom, u, tuple(occ))))
        if out:
            return out, None
        atom = self._ground_atom(el.atom, sigma)
        time = value(el.time, sigma) if el.time is not None and is_bound(el.time, sigma) else None
        occ = () if atom is None else tuple(w.witnesses(el, atom, time)[2])
        return [], Lit(i, lit, False, subst_literal(lit, sigma), span, atom, time, occ)

    def supports(self, *targets):
        """The rule instances whose body holds for every derived atom the targets may rest on."""
        found, todo = {}, list(targets)
        while todo:
            x = todo.pop()
            if x in found:
                continue
            found[x] = []
            for idx in self.by_head.get(x[0][0], ()):
                rule = self.rules[idx]
                unified = self.unify_head(rule, *x)
                for sigma, lits in () if unified is None else self.holding(rule, *unified):
                    found[x].append((idx, sigma, lits))
                    for lit in lits:
                        if not lit.literal.negated:
                            todo.extend((o.atom, o.time) for o in lit.occ if o.source == "derived")
        return found

    def ranks(self, found):
        """Least-fixpoint rounds: ``{x: (round, (idx, sigma, lits), chosen occurrences)}``."""
        done: dict = {}
        for level in itertools.count(1):
            new = {}
            for x, instances in found.items():
                if x in done:
                    continue
                for inst in instances:
                    chosen = self._choose(inst[2], done)
                    if chosen is not None:
                        new[x] = (level, inst, chosen)
                        break
            if not new:
                return done
            done.update(new)

    @staticmethod
    def _choose(lits, done):
        """Per literal, the occurrences the support cites (derived ones from earlier rounds), or None."""
        out = []
        for lit in lits:
            el = lit.literal.element
            if lit.literal.negated or isinstance(el, ast.Comparison):
                out.append(())
                continue
            ok = [o for o in lit.occ if o.source != "derived" or (o.atom, o.time) in done]
            if el.modality == ast.BOX:
                if len(ok) != len(lit.occ):
                    return None
                out.append(tuple(ok))
            elif not ok:
                return None
            elif el.modality == ast.DIAMOND:
                plain = [o for o in ok if o.source != "derived"]
                out.append((plain[-1],) if plain else (min(ok, key=lambda o: done[(o.atom, o.time)][0]),))
            else:
                out.append((ok[0],))
        return out

    def is_answer_stream(self) -> bool:
        """Is the world's answer stream one of the program: every holding body's head in it (no
        constraint's; no @-head beyond t under ``future_heads=inconsistent``), every atom supported?"""
        w = self.world
        inconsistent = w.windows.semantics.future_heads is FutureHeads.INCONSISTENT
        for rule in self.rules:
            if rule.is_fact:
                continue
            if rule.head is None:
                if next(self.holding(rule), None) is not None:
                    return False  # a constraint's body holds
                continue
            for atom, u in self.heads(rule):
                if u < w.origin:
                    continue  # a pin dropped before the origin
                if (u > w.t and inconsistent) or (atom not in w.background and (atom, u) not in w.derived):
                    return False
        ranked = self.ranks(self.supports(*w.derived))
        return all(x in ranked for x in w.derived)

    def why(self, atom: tuple, u: int) -> Node:
        """The derivation of a derived atom at u (a well-founded support, sub-derivations shared)."""
        ranked = self.ranks(self.supports((atom, u)))
        if (atom, u) not in ranked:
            raise InternalError(
                f"{format_atom(atom)} at {u} has no well-founded support in this answer stream"
                " (the answer stream is not one of the program)"
            )
        return self._derived(atom, u, ranked)

    def _derived(self, atom, u, ranked) -> Node:
        key = f"{format_atom(atom)}@{u}"
        if key in self._nodes:
            return self._nodes[key]
        _, (idx, sigma, lits), chosen = ranked[(atom, u)]
        children = [self._holding(lit, occ, ranked) for lit, occ in sorted(zip(lits, chosen), key=lambda p: p[0].index)]
        text = f"{format_atom(atom)} at {u}  <-  {_instance(self.rules[idx], sigma)}"
        made = node("derived", text, children, key, atom=atom, time=u, rule=idx, binding=tuple(sorted(sigma.items())))
        self._nodes[key] = made
        return made

    def _evidence(self, o: Occurrence, lit: Lit, ranked) -> Node:
        tuple_window = lit.literal.element.window is not None and lit.literal.element.window.is_tuple
        if o.source == "fact":
            return node("fact", f"{format_atom(o.atom)}: background fact", atom=o.atom)
        if o.source == "input":
            text = f"{format_atom(o.atom)} arrived at t={o.time}" + (f" (#{o.count})" if tuple_window else "")
            return node("input", text, atom=o.atom, time=o.time, count=o.count, tuple=tuple_window)
        if ranked is None:
            return node("holds", f"{format_atom(o.atom)} holds at {o.time} (derived)", atom=o.atom, time=o.time)
        return self._derived(o.atom, o.time, ranked)

    def _holding(self, lit: Lit, chosen, ranked) -> Node:
        el = lit.literal.element
        info = lit.info() | dict(modality=None if isinstance(el, ast.Comparison) else str(el.modality))
        if isinstance(el, ast.Comparison):
            return node("literal", f"{lit.text}: true", **info)
        if lit.literal.negated:
            children = self._absent_children(lit, WHY_NOT_DEPTH - 1, frozenset(), assume=True)
            return node("literal", f"{lit.text}: {self._describe_absent(lit)}", children, **info)
        head = lit.text if el.modality == ast.NOW else f"{lit.text}: {self._window_text(lit)}"
        return node("literal", head, [self._evidence(o, lit, ranked) for o in chosen], **info)

    def _where(self, lit: Lit) -> str:
        el, span = lit.literal.element, lit.span
        if el.window is None:
            return f"timeline {span}"
        if el.window.is_tuple:
            scoped = self.world.windows.semantics.tuple_scope is TupleScope.PREDICATE
            what = f"{el.atom.predicate} atoms" if scoped else "atoms"
            return f"tuple window of the last {self.world.windows.size(el.window)} {what} {span}"
        return f"window {span}"

    def _window_text(self, lit: Lit) -> str:
        el, span = lit.literal.element, lit.span
        if el.modality == ast.NOW:
            return f"at t={span.hi}"
        where = self._where(lit)
        if el.modality == ast.AT:
            return f"{where}, pinned at {format_term(lit.time) if lit.time is not None else '?'}"
        return f"{where}, {'every time point' if el.modality == ast.BOX else 'witness'}"

    def _describe_absent(self, lit: Lit) -> str:
        """Why an extended atom (positive, failing; or under not, holding) is false at t."""
        el, span, atom = lit.literal.element, lit.span, lit.atom
        if lit.note:
            return lit.note
        where = self._where(lit)
        pattern = format_atom(atom) if atom is not None else str(el.atom)
        if el.modality == ast.NOW:
            text = f"{pattern} does not hold at t={span.hi}"
        elif el.modality == ast.AT and lit.time is None:
            text = f"{pattern} holds at no time point of the {where}"
        elif el.modality == ast.AT:
            if lit.time not in span:
                return f"time {format_term(lit.time)} is outside the {where}"
            text = f"{pattern} does not hold at {format_term(lit.time)} in the {where}"
        elif el.modality == ast.BOX:
            if atom is None:
                return f"no {pattern} holds at every time point of the {where}"
            return f"{pattern} does not hold at {lit.missing()} ({where})"
        else:
            text = f"no {pattern} in the {where}"
        if atom is not None and atom[0] not in self.world.intensional:
            last = self.world.last_seen(atom)
            if last is not None and last.time is not None:
                text += f"; last arrived at t={last.time}"
        return text

    def _missing_point(self, lit: Lit):
        """The single (atom, u) whose absence makes the extended atom false, if there is one."""
        el, span, atom = lit.literal.element, lit.span, lit.atom
        if atom is None or atom[0] not in self.world.intensional:
            return None
        if el.modality == ast.NOW:
            return atom, span.hi
        if el.modality == ast.AT:
            return (atom, lit.time) if lit.time in span else None
        if el.modality == ast.BOX:
            return atom, lit.missing()
        return (atom, span.lo) if span.lo == span.hi else None

    def _absent_children(self, lit: Lit, depth: int, path, assume: bool = False):
        atom, modality = lit.atom, lit.literal.element.modality
        if atom is not None and assume and atom[0] in self.choice:
            points = {ast.AT: [lit.time], ast.NOW: [lit.span.hi]}.get(modality, range(lit.span.lo, lit.span.hi + 1))
            out = []
            for u in points:
                if (atom, u) not in self.world.derived and type(u) is int:
                    self.assumptions[(atom, u)] = None
                    why = "false by the choice of this answer stream (on a cycle through negation)"
                    out.append(node("assumption", f"{format_atom(atom)} at {u}: {why}", atom=atom, time=u))
            return out[:1] if modality == ast.BOX else out
        point = self._missing_point(lit)
        if point is None or depth < 0:
            return []
        return [self.why_not(point[0], point[1], depth, path)]

    def why_not(self, atom: tuple, u: int, depth: int = WHY_NOT_DEPTH, path=frozenset()) -> Node:
        """Why ``atom`` does not hold at u: every rule instance whose head matches, each with its
        first failing literal (followed ``depth`` levels into failing derived atoms)."""
        key = f"not {format_atom(atom)}@{u}"
        if key in self._nodes:
            return self._nodes[key]
        pred, w = atom[0], self.world
        title = f"{format_atom(atom)} does not hold at {u}"
        children = []
        if pred not in self.by_head:
            last = w.last_seen(atom)
            if last is not None and last.time is not None:
                title += f": a stream atom that did not arrive at t={u}; last arrived at t={last.time}"
            elif w.by_pred.get(pred):
                title += f": a stream atom that did not arrive at t={u}"
            else:
                title += f": no rule derives {pred} and no stream atom has it"
        elif u < w.origin:
            title += f": time {u} is before the timeline's origin {w.origin} (pins before it are dropped)"
        elif (atom, u) in path or depth < 0:
            title += " (not followed further)"
            key = ""
        else:
            failing = []
            for idx in self.by_head[pred]:
                rule = self.rules[idx]
                unified = self.unify_head(rule, atom, u)
                for sigma, lits, failed in () if unified is None else self.search(rule, *unified):
                    if not failed:
                        raise InternalError(
                            f"the body of {rule} [{binding_text(sigma)}] holds but {format_atom(atom)}"
                            f" at {u} is not in the answer stream (it is not a model of the program)"
                        )
                    failing.append((idx, sigma, lits[-1]))
            children = [self._candidate(*f, depth, path | {(atom, u)}) for f in failing[:MAX_CANDIDATES]]
            if not failing:
                title += ": no rule head matches it"
            if len(failing) > MAX_CANDIDATES:
                more = len(failing) - MAX_CANDIDATES
                children.append(node("note", f"... and {more} more failing instances", more=more))
        made = node("absent", title, children, key, atom=atom, time=u)
        if key:
            self._nodes[key] = made
        return made

    def _candidate(self, idx, sigma, fail: Lit, depth, path) -> Node:
        if isinstance(fail.literal.element, ast.Comparison) or fail.note:
            reason, children = fail.note or "false", []
        elif fail.literal.negated:
            reason, children = f"{format_atom(fail.atom)} holds", [self._evidence(o, fail, None) for o in fail.occ[:3]]
        else:
            reason, children = self._describe_absent(fail), self._absent_children(fail, depth - 1, path)
        lit_node = node("literal", f"fails at {fail.text}: {reason}", children, **fail.info())
        binding = tuple(sorted(sigma.items()))
        text = _instance(self.rules[idx], sigma)
        return node("candidate", text, [lit_node], rule=idx, binding=binding, failing=fail.index)
