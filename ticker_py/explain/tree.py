"""Explanations as small immutable trees, printed as text, JSON (nodes and edges), DOT or Markdown.

A :class:`Node` has a ``kind`` (see docs/formats.md), a one-line ``text``, machine-readable
``info`` and children. A derived atom's node is shared by every literal it supports and
carries a ``key``: text prints it once (later uses say ``(see above)``), JSON and DOT give it
one node id.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..values import format_atom, format_term
from .text import prefixed
from .world import Span

__all__ = ["Node", "Explanation", "node"]


@dataclass(frozen=True)
class Node:
    """One step of an explanation."""

    kind: str
    text: str
    children: tuple = ()
    key: str = ""
    info: tuple = ()  # (name, value) pairs

    def get(self, name: str, default=None):
        for k, v in self.info:
            if k == name:
                return v
        return default

    def walk(self):
        """Every node below and including this one, shared nodes once."""
        seen, todo = set(), [self]
        while todo:
            node = todo.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            yield node
            todo.extend(reversed(node.children))


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
    answer stream ``model`` (1-based) of ``models`` (``all_models`` False: of the first ``models`` the
    engine found); ``assumptions`` are the (atom, time) pairs
    the explanation takes as false by the choice of this answer stream (non-stratified programs)."""

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
        """An atom as this explanation prints it (clingo syntax, IRIs as the program writes them)."""
        return prefixed(format_atom(atom), self.prefixes)

    @property
    def title(self) -> str:
        at = "" if self.time == self.t else f" at {self.time}"
        return (
            f"{self.question} {self.atom_text(self.atom)}{at}: t={self.t} c={self.c},"
            f" answer stream {self.model} of {self.models}{'' if self.all_models else ' found'}"
        )

    def __str__(self) -> str:
        lines = [self.title]
        seen: set = set()
        _text(self.root, 1, seen, lines)
        if self.assumptions:
            lines.append(
                "  assuming (the choice of this answer stream): "
                + ", ".join(f"not {self.atom_text(a)} at {u}" for a, u in self.assumptions)
            )
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """A node/edge structure (docs/formats.md)."""
        ids: dict = {}
        nodes, edges = [], []

        def visit(node: Node) -> str:
            ident = ids.get(node.key or id(node))
            if ident is not None:
                return ident
            ident = f"n{len(ids)}"
            ids[node.key or id(node)] = ident
            entry = {"id": ident, "kind": node.kind, "text": node.text}
            entry.update((k, _json_value(k, v)) for k, v in node.info)
            nodes.append(entry)
            for child in node.children:
                edges.append({"from": ident, "to": visit(child)})
            return ident

        root = visit(self.root)
        return {
            "question": self.question,
            "atom": format_atom(self.atom),
            "time": self.time,
            "t": self.t,
            "c": self.c,
            "model": self.model,
            "models": self.models,
            "all_models": self.all_models,
            "assumptions": [{"atom": format_atom(a), "time": u} for a, u in self.assumptions],
            "root": root,
            "nodes": nodes,
            "edges": edges,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=False)

    def to_dot(self) -> str:
        """The explanation graph for graphviz."""
        data = self.to_dict()
        out = [
            "digraph explanation {",
            "  rankdir=TB;",
            '  node [shape=box, fontname="monospace"];',
            f"  label={_dot_quote(self.title)}; labelloc=t;",
        ]
        shapes = {  # derived atoms and candidates: boxes
            "fact": "note",
            "input": "cds",
            "assumption": "diamond",
            "absent": "octagon",
            "note": "plaintext",
            "literal": "ellipse",
        }
        for node in data["nodes"]:
            out.append(f"  {node['id']} [label={_dot_quote(node['text'])}, shape={shapes.get(node['kind'], 'box')}];")
        for edge in data["edges"]:
            out.append(f"  {edge['from']} -> {edge['to']};")
        out.append("}")
        return "\n".join(out) + "\n"

    def _repr_html_(self) -> str:
        """A notebook's view: the derivation as a small picture, and the text."""
        from .render import notebook_html

        return notebook_html(self)

    def _repr_markdown_(self) -> str:
        lines = [f"**{self.title}**", ""]
        seen: set = set()
        _text(self.root, 0, seen, lines, bullet="- ", indent="  ")
        return "\n".join(lines) + "\n"


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _text(node: Node, depth: int, seen: set, lines: list, bullet: str = "", indent: str = "  ") -> None:
    pad = indent * depth + bullet
    if node.key and node.key in seen:
        lines.append(f"{pad}{node.text}  (see above)")
        return
    if node.kind == "literal" and node.get("modality") == "now" and not node.get("negated") and len(node.children) == 1:
        _text(node.children[0], depth, seen, lines, bullet, indent)  # the evidence says it all
        return
    if node.key:
        seen.add(node.key)
    lines.append(pad + node.text)
    inputs = [c for c in node.children if c.kind == "input"]
    if len(inputs) > 1:  # a run of stream atoms (a box window): one line
        lines.append(f"{indent * (depth + 1)}{bullet}{_input_run(inputs)}")
    for child in node.children:
        if child.kind == "input" and len(inputs) > 1:
            continue
        _text(child, depth + 1, seen, lines, bullet, indent)


def _input_run(inputs) -> str:
    atoms = {format_atom(n.get("atom")) for n in inputs}
    tuple_ = inputs[0].get("tuple", False)
    times = ", ".join(f"{n.get('time')}" + (f" (#{n.get('count')})" if tuple_ else "") for n in inputs)
    return f"{', '.join(sorted(atoms))} arrived at t={times}"


def node(kind: str, text: str, children=(), key: str = "", **info) -> Node:
    """A Node with keyword info (``None`` values dropped)."""
    return Node(kind, text, tuple(children), key, tuple((k, v) for k, v in info.items() if v is not None))
