"""Explanations as small immutable trees, printed as text, JSON (nodes and edges), DOT or Markdown.

A derived atom's node is shared by every literal it supports and carries a ``key``: text prints
it once (later uses say ``(see above)``), JSON and DOT give it one node id.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..values import format_atom, format_term
from .text import prefixed
from .world import Span

__all__ = ["Node", "Explanation", "Row", "node", "rows"]


@dataclass(frozen=True)
class Node:
    """One step of an explanation."""

    kind: str
    text: str
    children: tuple = ()
    key: str = ""
    info: tuple = ()  # (name, value) pairs

    def get(self, name: str, default=None):
        return next((v for k, v in self.info if k == name), default)

    def evidence_times(self) -> tuple:
        """The time points of a holding positive literal's evidence (a negated or failing one has none)."""
        if self.get("negated") or not self.get("holds", True):
            return ()
        return tuple(sorted({c.get("time") for c in self.children if type(c.get("time")) is int}))

    def graph(self) -> tuple:
        """``(nodes, edges)``: ``[(id, node)]`` in visiting order (a key once) and ``(from, to)`` id pairs."""
        ids, nodes, edges = {}, [], []

        def visit(node: Node) -> str:
            key = node.key or id(node)
            if key not in ids:
                ident = ids[key] = f"n{len(ids)}"
                nodes.append((ident, node))
                for child in node.children:
                    edges.append((ident, visit(child)))
            return ids[key]

        visit(self)
        return nodes, edges


def _json_value(name: str, value):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if name == "atom":
        return format_atom(value)
    if name == "binding":
        return {var: format_term(v) for var, v in value}
    if isinstance(value, Span):
        out = {"lo": value.lo, "hi": value.hi}
        if value.first is not None:
            out.update(first=value.first, last=value.last)
        if value.kept is not None:
            out["kept"] = list(value.kept)
        return out
    return str(value)


@dataclass(frozen=True)
class Explanation:
    """Why an atom holds (``question == "why"``) or does not (``"why-not"``) at tick (t, c) in
    answer stream ``model`` (1-based) of ``models``; ``assumptions`` are the (atom, time) pairs
    taken as false by the choice of this answer stream (non-stratified programs)."""

    question: str
    atom: tuple
    time: int
    t: int
    c: int
    model: int
    models: int
    root: Node
    assumptions: tuple = ()
    all_models: bool = True  # False: the answer streams were the first ``models`` the engine found
    prefixes: tuple = ()  # the program's (name, namespace) pairs: IRIs print as it writes them

    def atom_text(self, atom: tuple) -> str:
        return prefixed(format_atom(atom), self.prefixes)

    @property
    def title(self) -> str:
        at = "" if self.time == self.t else f" at {self.time}"
        return (
            f"{self.question} {self.atom_text(self.atom)}{at}: t={self.t} c={self.c},"
            f" answer stream {self.model} of {self.models}{'' if self.all_models else ' found'}"
        )

    def rows(self) -> list:
        out = rows(self.root)
        if self.assumptions:
            text = ", ".join(f"not {self.atom_text(a)} at {u}" for a, u in self.assumptions)
            out.append(Row(0, "assumption", f"assuming (the choice of this answer stream): {text}"))
        return out

    def __str__(self) -> str:
        return "\n".join([self.title] + ["  " * (r.depth + 1) + r.text for r in self.rows()])

    def to_dict(self) -> dict:
        """A node/edge structure (docs/formats.md)."""
        nodes, edges = self.root.graph()
        fields = ("question", "atom", "time", "t", "c", "model", "models", "all_models")
        return {k: getattr(self, k) for k in fields} | {
            "atom": format_atom(self.atom),
            "assumptions": [{"atom": format_atom(a), "time": u} for a, u in self.assumptions],
            "root": nodes[0][0],
            "nodes": [
                {"id": ident, "kind": n.kind, "text": n.text, **{k: _json_value(k, v) for k, v in n.info}}
                for ident, n in nodes
            ],
            "edges": [{"from": a, "to": b} for a, b in edges],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=False)

    def to_dot(self) -> str:
        """The explanation graph for graphviz."""
        nodes, edges = self.root.graph()
        head = 'digraph explanation {\n  rankdir=TB;\n  node [shape=box, fontname="monospace"];\n'
        lines = [f"  label={_dot_quote(self.title)}; labelloc=t;"]
        lines += [f"  {i} [label={_dot_quote(n.text)}, shape={_SHAPES.get(n.kind, 'box')}];" for i, n in nodes]
        return head + "\n".join(lines + [f"  {a} -> {b};" for a, b in edges]) + "\n}\n"

    def _repr_html_(self) -> str:
        from .render import notebook_html

        return notebook_html(self)

    def _repr_markdown_(self) -> str:
        return "\n".join([f"**{self.title}**", ""] + ["  " * r.depth + "- " + r.text for r in rows(self.root)]) + "\n"


#: the DOT shape of a node kind (others: boxes)
_SHAPES = {
    "fact": "note",
    "input": "cds",
    "assumption": "diamond",
    "absent": "octagon",
    "note": "plaintext",
    "literal": "ellipse",
}


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass(frozen=True)
class Row:
    """One line of an explanation: ``span`` of a window literal, ``times`` of its evidence, ``at`` its own."""

    depth: int
    kind: str
    text: str
    span: tuple | None = None
    times: tuple = ()
    at: int | None = None


def rows(root: Node) -> list:
    """The tree in reading order: a shared derivation once (later uses ``(see above)``), a ``now``
    literal with one piece of evidence as that evidence, the stream atoms of one literal in one row."""
    out: list = []
    seen: set = set()

    def visit(node: Node, depth: int) -> None:
        at = node.get("time") if node.kind in ("derived", "input", "assumption", "absent", "holds") else None
        at = at if type(at) is int else None
        if node.key and node.key in seen:
            out.append(Row(depth, node.kind, f"{node.text}  (see above)", at=at))
            return
        now = node.kind == "literal" and node.get("modality") == "now" and not node.get("negated")
        if now and len(node.children) == 1:
            return visit(node.children[0], depth)  # the evidence says it all
        if node.key:
            seen.add(node.key)
        times = node.evidence_times() if node.kind == "literal" else ()
        span = node.get("span")
        out.append(Row(depth, node.kind, node.text, None if span is None else (span.lo, span.hi), times, at))
        inputs = [c for c in node.children if c.kind == "input"]
        if len(inputs) > 1:  # a run of stream atoms (a box window): one row
            out.append(Row(depth + 1, "input", _input_run(inputs), times=tuple(c.get("time") for c in inputs)))
        for child in node.children:
            if not (child.kind == "input" and len(inputs) > 1):
                visit(child, depth + 1)

    visit(root, 0)
    return out


def _input_run(inputs) -> str:
    atoms = {format_atom(n.get("atom")) for n in inputs}
    tuple_ = inputs[0].get("tuple", False)
    times = ", ".join(f"{n.get('time')}" + (f" (#{n.get('count')})" if tuple_ else "") for n in inputs)
    return f"{', '.join(sorted(atoms))} arrived at t={times}"


def node(kind: str, text: str, children=(), key: str = "", **info) -> Node:
    """A Node with keyword info (``None`` values dropped)."""
    return Node(kind, text, tuple(children), key, tuple((k, v) for k, v in info.items() if v is not None))
