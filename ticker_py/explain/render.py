"""Explanations as pictures: the derivation tree with window spans on a time axis and witnesses.

An explanation is read through its public attributes only (its rows, its nodes' graph), so this
module and :mod:`.tree` (whose ``_repr_html_`` calls it) do not import each other.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from html import escape

__all__ = ["to_rich_dot", "picture", "report", "notebook_html", "FORMATS", "NO_DOT"]

#: the picture formats of ``ticker explain --format``
FORMATS = ("svg", "png", "html")
NO_DOT = (
    "graphviz's dot program is not installed: the tree is drawn with matplotlib (install graphviz for the graph layout)"
)
_MAX_TEXT = 110
_STRIP = 30  # time points drawn one by one in a graphviz strip; more are grouped
#: a node kind's (text colour in the matplotlib picture, fill in the graph)
_COLORS = {
    "derived": ("#1f6fb4", "#dbe9f6"),
    "input": ("#555555", "#eeeeee"),
    "fact": ("#8c6d00", "#fff3c4"),
    "assumption": ("#ff7f0e", "#ffe0b2"),
    "absent": ("#d62728", "#fde0e0"),
    "candidate": ("#9467bd", "#ece4f5"),
}
_DEFAULT = ("#222222", "#ffffff")


def _cut(text: str, room: int) -> str:
    return text if len(text) <= room else text[: room - 1] + "…"


def _extent(e, rs) -> tuple:
    times = [e.t, *(u for r in rs for u in (*r.times, *(r.span or ())))]
    times += [r.at for r in rs if r.at is not None]
    return min(times), max(times)


def figure(e, heading: str = "", width: float = 12.0, small: bool = False):
    """The matplotlib picture (tree text on the left, time axis on the right)."""
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    from ..plot.draw import STYLE

    rs = e.rows()
    lo, hi = _extent(e, rs)
    n, text_w = len(rs), 0.58
    row_h, size = (0.16, 6) if small else (0.19, 6.5)
    height = (0.7 if heading and not small else 0.45) + row_h * n + 0.75
    indent = 2 * 0.6 * size / 72  # two characters of the monospace font, in inches
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(width, height))
        ax = fig.add_axes((text_w, 0.55 / height, 0.98 - text_w, (row_h * n) / height))
        ax.set_ylim(n - 0.5, -0.5)
        ax.set_xlim(lo - 0.6, hi + 0.6)
        for i, r in enumerate(rs):
            if i % 2:
                ax.axhspan(i - 0.5, i + 0.5, color="#f4f4f4", lw=0, zorder=0)
            # the indentation is the text's position, not leading spaces (an SVG viewer collapses them),
            # and spaces within stay spaces (non-breaking)
            x, y = 0.01 + r.depth * indent / width, (0.55 + row_h * (n - i - 0.5)) / height
            text = _cut(r.text, _MAX_TEXT - 2 * r.depth).replace("  ", "\u00a0\u00a0")
            color = _COLORS.get(r.kind, _DEFAULT)[0]
            fig.text(x, y, text, fontsize=size, family="monospace", va="center", color=color)
            if r.span:
                a, b = r.span
                ax.barh(i, b - a + 1, left=a - 0.5, height=0.5, color="#9cc3e6", gid=f"span-{i}")
            if r.times:
                ax.scatter(r.times, [i] * len(r.times), s=12, color="#1f6fb4", zorder=3)
            if r.at is not None:
                ax.scatter([r.at], [i], marker="D", s=16, color=color, zorder=3)
        ax.axvline(e.t, color="#d62728", ls="--", lw=1)
        ax.set_yticks([])
        ax.set_xlabel("time point")
        ax.grid(axis="x", alpha=0.3)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=10))
        if hi - lo < 10:  # a few time points: each its tick (one time point: one tick, not -0.6 ... 0.6)
            ax.set_xticks(range(lo, hi + 1))
        handles = [
            Line2D([], [], color="#9cc3e6", lw=5, label="window span"),
            Line2D([], [], marker="o", ls="", color="#1f6fb4", label="evidence"),
            Line2D([], [], marker="D", ls="", color="#555555", label="atom's time point"),
            Line2D([], [], color="#d62728", ls="--", label=f"t = {e.t}"),
        ]
        ax.legend(handles=handles, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=4, fontsize=6.5, frameon=False)
        fig.suptitle(e.title, x=0.01, y=1 - 0.08 / height, ha="left", va="top", fontsize=9, fontweight="bold")
        if heading and not small:
            fig.text(0.01, 1 - 0.32 / height, heading, ha="left", va="top", fontsize=8, color="#333333")
    return fig


def _strip(span: tuple, times: tuple) -> str:
    """An HTML-label table of the span's time points (grouped when many), the evidence dark."""
    lo, hi = span
    width = hi - lo + 1
    step = max(1, -(-width // _STRIP))
    groups = [(a, min(hi, a + step - 1)) for a in range(lo, hi + 1, step)]
    texts = [str(a) if a == b else f"{a}-{b}" for a, b in groups]
    cell_w = max(24, 7 * max(map(len, texts)) + 8)
    cells = []
    for (a, b), text in zip(groups, texts):
        hit = any(a <= u <= b for u in times)
        color = "#1f6fb4" if hit else "#9cc3e6"
        font = '<FONT COLOR="white">' if hit else "<FONT>"
        cells.append(f'<TD BGCOLOR="{color}" WIDTH="{cell_w}" HEIGHT="18" FIXEDSIZE="TRUE">{font}{text}</FONT></TD>')
    return (
        f'<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="0" FIXEDSIZE="TRUE" '
        f'WIDTH="{cell_w * len(cells)}" HEIGHT="18"><TR>' + "".join(cells) + "</TR></TABLE>"
    )


def to_rich_dot(e, heading: str = "") -> str:
    """DOT with HTML-like labels: every node's text, a window literal's time points as a strip."""
    lines = [
        "digraph explanation {",
        "  rankdir=TB; nodesep=0.25; ranksep=0.3;",
        '  node [shape=plaintext, fontname="monospace", fontsize=10];',
        f"  label=<{escape(e.title)}{'<BR/>' + escape(heading) if heading else ''}>; labelloc=t;"
        ' labeljust=l; fontname="sans-serif";',
    ]
    nodes, edges = e.root.graph()
    for ident, node in nodes:
        span, strip = node.get("span"), ""
        if span is not None:
            strip = f'<TR><TD ALIGN="LEFT">{_strip((span.lo, span.hi), node.evidence_times())}</TD></TR>'
        fill = _COLORS.get(node.kind, _DEFAULT)[1]
        label = (
            f'<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3" BGCOLOR="{fill}">'
            f'<TR><TD ALIGN="LEFT">{escape(_cut(node.text, _MAX_TEXT))}</TD></TR>{strip}</TABLE>'
        )
        lines.append(f"  {ident} [label=<{label}>];")
    return "\n".join(lines + [f"  {a} -> {b};" for a, b in edges] + ["}"]) + "\n"


def _dot_render(source: str, fmt: str) -> bytes | None:
    """``dot -T fmt`` of the source, or None when graphviz's dot program is not installed."""
    if shutil.which("dot") is None:
        return None
    return subprocess.run(["dot", f"-T{fmt}"], input=source.encode(), capture_output=True, check=True).stdout


def picture(e, fmt: str, heading: str = "", graph: bool = True) -> tuple:
    """``(data, note)``: ``svg`` or ``png`` bytes drawn by graphviz (``graph``), else by matplotlib (noted)."""
    note = ""
    if graph:
        data = _dot_render(to_rich_dot(e, heading), fmt)
        if data is not None:
            return data, ""
        note = NO_DOT
    from ..plot.draw import save

    buf = io.BytesIO()
    save(figure(e, heading), buf, fmt)
    return buf.getvalue(), note


def report(e, heading: str = "", timeline=None) -> tuple:
    """``(html, note)``: the picture, the text, the nodes (filtered) and the run's ``timeline`` up to *t*."""
    from ..plot import html
    from ..plot.draw import figure as timeline_figure
    from ..plot.draw import svg_text

    data, note = picture(e, "svg", heading)
    svg = data.decode("utf-8")
    sections = [html.section("Derivation", f'<div class="tk-fig">{svg[svg.index("<svg") :]}</div>')]
    if note:
        sections.append(f'<p class="tk-note">note: {escape(note)}</p>')
    sections.append(html.section("As text", f'<pre class="tk">{escape(str(e))}</pre>'))
    body = "\n".join(
        f'<tr><td class="t">{i}</td><td>{escape(r.kind)}</td><td>{"&nbsp;" * 2 * r.depth}{escape(r.text)}</td>'
        f"<td>{'' if r.span is None else f'[{r.span[0]}, {r.span[1]}]'}</td>"
        f"<td>{', '.join(map(str, r.times or ([] if r.at is None else [r.at])))}</td></tr>"
        for i, r in enumerate(e.rows())
    )
    nodes = (
        '<div class="filter" data-table="nodes"><input type="search" placeholder="filter: words every row must'
        ' contain"> <span class="count"></span></div>'
        '<table class="tk" id="nodes"><thead><tr><th>#</th><th>kind</th><th>text</th><th>span</th>'
        f"<th>time points</th></tr></thead><tbody>\n{body}\n</tbody></table>"
    )
    sections.append(html.section("Nodes", nodes))
    if timeline is not None:
        run = f'<div class="tk-fig">{svg_text(timeline_figure(timeline))}</div>'
        sections.append(html.section("Timeline of the run", run))
        sections.append(html.section("Answer streams per time point", html.answer_table(timeline)))
    return html.page(e.title, heading, sections), note


def notebook_html(e) -> str:
    """A notebook's view of an explanation: the small picture (matplotlib) and the text."""
    from ..plot.html import compact_figure

    svg, note = compact_figure(lambda: figure(e, small=True, width=9.0))
    text = f'<pre class="tk">{escape(str(e))}</pre>'
    return f"<div>{svg or ''}{text}{note}</div>"
