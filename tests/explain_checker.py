"""An independent checker for explanations (ticker_py.explain), built on the reference evaluator.

``check_explanation(explanation, program, stream, model)`` raises AssertionError unless:

- why: every ``derived`` node cites a program rule and a complete substitution whose head is
  the node's atom at its time and whose every body literal holds in the answer stream and the
  stream at (t, c); every piece of window evidence is an occurrence of the literal's atom inside
  the window's span (□: the occurrences cover the span; @: at the pinned time); derived evidence
  is in the answer stream; the graph of derived nodes is acyclic (well-founded);
- why not: the atom is not in the answer stream; every ``candidate`` names one failing literal
  that fails under every extension of its substitution, and its head matches the atom; every
  ground instance whose head is the atom and whose positive body holds is covered by a
  candidate of the same rule whose failing ``not`` literal is one of the instance's and holds.

It uses the reference evaluator's grounding and window semantics (tests/reference.py), not the
explainer's own code, under the semantics knobs the answer stream was computed with. Under
``tuple_ties=choice`` a tuple window has several contents at a tick: the explanation must pass
under one choice of contents for which the answer stream is one of the reference's.
"""

from __future__ import annotations

import itertools

import reference as ref

from ticker_py import ast
from ticker_py.semantics import DEFAULT, Origin
from ticker_py.syntax import parse_program


def derived_pairs(prep, stream_obj, model):
    """The derived (atom, time) pairs of an answer stream Model."""
    t = stream_obj.t
    out = {(a, t) for a in model.atoms if (a[0], len(a) - 1) in prep.intensional and a not in prep.background}
    out |= {(a, u) for a, u in model.pinned if a not in prep.background}
    return frozenset(out)


def _element(lit, sigma, interp):
    """The reference's ground element of an extended-atom literal under sigma (or _UNDEF)."""
    return ref._ground_negated(ast.Literal(lit.element, True), sigma, interp)


def _literal_holds(lit, sigma, interp) -> bool:
    el = lit.element
    if isinstance(el, ast.Comparison):
        a, b = ref._eval(el.left, sigma), ref._eval(el.right, sigma)
        if a is ref._UNDEF or b is ref._UNDEF:
            return False
        return ref._compare(el.op, a, b) != lit.negated
    g = _element(lit, sigma, interp)
    if g is ref._UNDEF:
        return False
    return interp.holds(g) != lit.negated


class Checker:
    """The checks under one content of each tuple window (``cut``: the reference's
    ``Stream.cut``; None: the first)."""

    def __init__(self, program, stream, t: int, c: int, model, semantics=DEFAULT, cut=None):
        self.program = parse_program(program) if isinstance(program, str) else program
        self.prep = ref.prepare(self.program)
        origin = stream[0][0] if stream and semantics.origin is Origin.FIRST else 0
        self.stream = ref.Stream(stream, t, c, self.prep, semantics, origin)
        if cut is not None:
            self.stream.cut = dict(cut)
        self.derived = derived_pairs(self.prep, self.stream, model)
        self.interp = ref.Interp(self.stream, {(a, u) for a, u in self.derived if u <= t})
        self.t = t
        self.counts: dict = {}  # (time, atom) -> its counts (several under duplicates=bag)
        for k, time, atom in self.stream.counted:
            self.counts.setdefault((time, atom), set()).add(k)

    # -- why

    def check_derived(self, node):
        rule = self.program.rules[node.get("rule")]
        sigma = dict(node.get("binding"))
        assert ast.rule_variables(rule) <= sigma.keys(), f"incomplete substitution in {node.text}"
        head = rule.head
        atom = (head.atom.predicate, *(ref._eval(a, sigma) for a in head.atom.args))
        time = self.t if head.time is None else ref._eval(head.time, sigma)
        assert (atom, time) == (node.get("atom"), node.get("time")), f"head mismatch: {node.text}"
        assert (atom, time) in self.derived, f"{node.text}: not in the answer stream"
        by_index = {}
        for child in node.children:
            assert child.kind == "literal", child
            assert child.get("index") not in by_index, f"literal cited twice: {child.text}"
            by_index[child.get("index")] = child
        assert sorted(by_index) == list(range(len(rule.body))), f"{node.text}: literals {sorted(by_index)}"
        deps = []
        for i, lit in enumerate(rule.body):
            assert _literal_holds(lit, sigma, self.interp), f"{node.text}: body literal {lit} is false"
            if not lit.negated and isinstance(lit.element, ast.ExtendedAtom):
                deps += self.check_evidence(lit, sigma, by_index[i])
        return deps

    def check_evidence(self, lit, sigma, lit_node):
        """Window evidence of a positive extended atom; returns the derived nodes it cites."""
        modality, atom, time, window = _element(lit, sigma, self.interp)
        span = [self.t] if modality == ast.NOW else list(self.interp.timeline(window))
        evidence = lit_node.children
        assert evidence, f"no evidence for {lit_node.text}"
        deps, times = [], set()
        for ev in evidence:
            assert ev.get("atom") == atom, f"evidence {ev.text} is not about {atom}"
            if ev.kind == "fact":
                assert atom in self.prep.background
                times = set(span)
                continue
            u = ev.get("time")
            assert u in span, f"evidence {ev.text} outside the span {span[0]}..{span[-1]}"
            if modality == ast.AT:
                assert u == time, f"{ev.text}: not at the pinned time {time}"
            assert self.interp.holds_at(atom, u, window), f"{ev.text}: does not hold through {window}"
            if ev.kind == "input":
                assert atom in self.stream.input[u] and ev.get("count") in self.counts.get((u, atom), ()), ev.text
            else:
                assert ev.kind == "derived" and (atom, u) in self.derived, ev.text
                deps.append(ev)
            times.add(u)
        if modality == ast.BOX:
            assert times == set(span), f"{lit_node.text}: box evidence {sorted(times)} does not cover the span"
        return deps

    def check_why(self, root):
        graph = {}
        for _, node in root.graph()[0]:
            if node.kind == "derived":
                graph[node.key] = [d.key for d in self.check_derived(node)]
            elif node.kind == "absent":
                self.check_absent(node)
            elif node.kind == "assumption":
                assert (node.get("atom"), node.get("time")) not in self.derived
        state = {}

        def visit(key):  # acyclic: no derived atom rests on itself
            assert state.get(key) != 1, f"cyclic support through {key}"
            if state.get(key) == 2:
                return
            state[key] = 1
            for dep in graph[key]:
                visit(dep)
            state[key] = 2

        for key in graph:
            visit(key)

    # -- why not

    def check_absent(self, node):
        atom, u = node.get("atom"), node.get("time")
        assert (atom, u) not in self.derived and atom not in self.prep.background, f"{node.text}: it holds"
        if (atom[0], len(atom) - 1) not in self.prep.intensional:
            assert atom not in self.stream.input.get(u, ()), f"{node.text}: it arrived"
            return
        candidates = [c for c in node.children if c.kind == "candidate"]
        truncated = any(c.kind == "note" and c.get("more") for c in node.children)
        if "not followed further" in node.text:
            return
        for cand in candidates:
            self.check_candidate(cand, atom, u)
        if truncated:
            return
        for i, rule in enumerate(self.program.rules):
            if rule.head is None or rule.is_fact or rule.head.atom.predicate != atom[0]:
                continue
            if self.head_matches(rule, atom, u):
                assert any(c.get("rule") == i for c in candidates), f"{node.text}: {rule} is not listed"
            for gr in ref.ground_rule(rule, self.interp):
                if gr.head != (atom, u):
                    continue
                assert any(self.covers(c, gr) for c in candidates if c.get("rule") == i), (
                    f"{node.text}: the instance {gr} of {rule} is not covered"
                )

    def head_matches(self, rule, atom, u) -> bool:
        if u < self.stream.origin:
            return False  # pins before the origin are dropped
        pairs = list(zip(rule.head.atom.args, atom[1:]))
        if rule.head.time is None:
            if u != self.t:
                return False
        else:
            pairs.append((rule.head.time, u))
        sigma = {}
        for term, g in pairs:
            sigma = ref._match(term, g, sigma)
            if sigma is None:
                return False
        return True

    def covers(self, cand, gr) -> bool:
        rule = self.program.rules[cand.get("rule")]
        lit = rule.body[cand.get("failing")]
        if not lit.negated or isinstance(lit.element, ast.Comparison):
            return False
        g = _element(lit, dict(cand.get("binding")), self.interp)
        return g in gr.neg and self.interp.holds(g)

    def check_candidate(self, cand, atom, u):
        rule = self.program.rules[cand.get("rule")]
        sigma = dict(cand.get("binding"))
        lits = [c for c in cand.children if c.kind == "literal"]
        assert len(lits) == 1 and lits[0].get("index") == cand.get("failing") and not lits[0].get("holds"), cand.text
        head = rule.head
        s = sigma
        for term, g in list(zip(head.atom.args, atom[1:])) + ([(head.time, u)] if head.time is not None else []):
            if ast.term_variables(term) <= s.keys():
                assert ref._same(ref._eval(term, s), g), f"{cand.text}: head does not match"
        if head.time is None:
            assert u == self.t
        lit = rule.body[cand.get("failing")]
        variables = ast.element_variables(lit.element)
        if variables <= sigma.keys():
            assert not _literal_holds(lit, sigma, self.interp), f"{cand.text}: {lit} does not fail"
        else:
            assert not lit.negated, f"{cand.text}: unbound negated literal"
            if isinstance(lit.element, ast.Comparison):
                assert (
                    lit.element.op == "="
                    and ref._eval(
                        lit.element.right if isinstance(lit.element.left, ast.Variable) else lit.element.left, sigma
                    )
                    is ref._UNDEF
                ), f"{cand.text}: {lit} can bind"
            else:
                assert not list(ref._solve(lit, sigma, self.interp)), f"{cand.text}: {lit} has a match"


def check_explanation(explanation, program, stream, model, semantics=DEFAULT) -> None:
    """Raise AssertionError unless the explanation is sound (module docstring) under one content of
    the tuple windows for which ``model`` is an answer stream of the reference."""
    t, c = explanation.t, explanation.c
    base = Checker(program, stream, t, c, model, semantics)
    windows = ref._tuple_windows(base.prep, semantics)
    cuts = list(itertools.product(*(base.stream.tuple_alternatives(*w) for w in windows)))
    failure = None
    for contents in cuts:
        checker = Checker(program, stream, t, c, model, semantics, dict(zip(windows, contents)))
        if len(cuts) > 1 and model not in _answers(checker):
            continue
        try:
            _check(explanation, checker)
            return
        except AssertionError as err:
            failure = err
    assert failure is not None, "the answer stream is the reference's under no choice of tuple windows"
    raise failure


def _answers(checker) -> set:
    """The reference's answer streams under the checker's choice of tuple windows."""
    found = ref.answer_streams(checker.prep, checker.stream)
    return {ref._model(checker.prep, checker.stream, d) for d in found}


def _check(explanation, checker) -> None:
    root = explanation.root
    if explanation.question == "why":
        assert root.kind in ("derived", "fact", "input")
        if root.kind == "derived":
            assert (root.get("atom"), root.get("time")) == (explanation.atom, explanation.time)
        checker.check_why(root)
    else:
        assert root.kind == "absent" and (root.get("atom"), root.get("time")) == (explanation.atom, explanation.time)
        for _, node in root.graph()[0]:
            if node.kind == "absent":
                checker.check_absent(node)
    for atom, u in explanation.assumptions:
        assert (atom, u) not in checker.derived
