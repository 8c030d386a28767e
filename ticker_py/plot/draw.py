"""The matplotlib figure of a :class:`~ticker_py.plot.timeline.Timeline` (docs/pictures.md), made
without pyplot (no global state, no GUI backend); in an SVG every lane's bars are one group ``lane-N``.
"""

from __future__ import annotations

import textwrap
from itertools import groupby
from pathlib import Path

from .timeline import Timeline

__all__ = ["figure", "codes_of", "results_figure", "save", "svg_text", "stream_ticks", "FORMATS", "LANE_INCH", "STYLE"]

#: the picture formats, by file suffix
FORMATS = ("svg", "png")
#: the height of one lane
LANE_INCH = 0.17
#: rcParams for every picture: text as text in SVG, reproducible files
STYLE = {"svg.fonttype": "none", "svg.hashsalt": "ticker", "font.size": 8, "axes.titlesize": 9}

_HOLDS, _SOME, _DIFF, _PIN = "#1f6fb4", "#9cc3e6", "#d62728", "#ff7f0e"
_MAX_LABEL = 44
_CODE_W = 0.3  # the margin column of the difference codes (inches)


def _short(text: str, limit: int = _MAX_LABEL) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _wrap(text: str, width: int) -> list:
    """Lines of at most ``width`` characters, words (paths, atoms) never split."""
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)


def codes_of(tl: Timeline) -> dict:
    """The short code (``A``, ``B``, ...) of each compared run whose differences are marked."""
    marked = [r for r in tl.runs[1:] if r in tl.notes and any(x.run == r and x.marks for x in tl.lanes)]
    return {r: _code(i) for i, r in enumerate(marked)}


def _code(i: int) -> str:
    return chr(ord("A") + i) if i < 26 else _code(i // 26 - 1) + chr(ord("A") + i % 26)


def _top_label(kind: str, tl: Timeline) -> str:
    if kind == "differing":
        return f"runs differing\nfrom {_short(tl.runs[0], 18)}"
    return "input atoms\nper time point" if kind == "inputs" else "answer streams\nper time point"


def _tick_chars(kind: str, tl: Timeline) -> int:
    """The characters of a top panel's widest tick label."""
    if kind == "streams":
        return max(len("none" if v == _NONE else f"{v:g}") for v in _stream_axis(tl)[0])
    return len(str(max(tl.inputs, default=1) if kind == "inputs" else len(tl.runs)))


def figure(tl: Timeline, width: float = 11.0, small: bool = False):
    """The figure of a timeline (``small``: a compact one for notebooks, no subtitle)."""
    import matplotlib
    from matplotlib.collections import PolyCollection
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.transforms import blended_transform_factory

    lanes = tl.lanes
    n = len(lanes)
    tops = ["inputs"] if tl.inputs else []
    tops += ["differing"] if len(tl.runs) > 1 else ["streams"] if tl.several else []
    top_h = 0.55 if small else 0.8
    lane_h = max(0.6, LANE_INCH * (n + (1 if tl.more else 0)))
    # the labels left of the axes: the lanes' (plus the rotated axis label), the top panels' written
    # across (two lines each, beside their ticks), so that no two labels meet at any size
    label_w = 0.45 + 0.055 * max((len(_short(x.label)) for x in lanes), default=8)
    for kind in tops:  # the label beside its tick labels ('none', '100' are wider than '4')
        label = max(map(len, _top_label(kind, tl).split("\n")))
        label_w = max(label_w, 0.28 + 0.07 * _tick_chars(kind, tl) + 0.062 * label)
    label_w = min(3.2, max(1.1, label_w))
    codes = codes_of(tl)
    right_w = 0.9 + (_CODE_W if codes else 0)
    axes_w = width - label_w - right_w
    title = _wrap(tl.title, int(width * (11 if not small else 13))) or [""]
    subtitle = _wrap(tl.subtitle, int(width * 16)) if not small else []
    head = 0.3 + 0.2 * len(title) + 0.16 * len(subtitle) + (0.1 if subtitle else 0)
    key = [(f"{codes[r]}: {r} vs {tl.runs[0]} — {tl.notes[r][1]}", _DIFF) for r in codes]
    for r, why in tl.unavailable.items():
        key += [(line, "#555555") for line in _wrap(f"{r}: not applicable — {why}", int(width * 14)) or [""]]
    key_h = 0.16 * len(key) + (0.1 if key else 0)
    heights = [max(top_h, _stream_panel_inch(tl)) if kind == "streams" else top_h for kind in tops]
    height = head + sum(h + 0.05 for h in heights) + lane_h + 0.6 + key_h
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(width, height))
        left = label_w / width
        axes, y = [], height - head
        for h in heights + [lane_h]:
            y -= h
            axes.append(fig.add_axes((left, y / height, axes_w / width, (h - 0.12) / height)))
            y -= 0.05
        for other in axes[1:]:
            other.sharex(axes[0])
        ax = axes[-1]
        lo, hi = tl.start, tl.end
        edges = [t - 0.5 for t in range(lo, hi + 2)]
        for kind, top in zip(tops, axes):
            _top_panel(kind, top, tl, edges)
            top.set_ylabel(_top_label(kind, tl), fontsize=7, rotation=0, ha="right", va="center", labelpad=4)
            top.tick_params(labelbottom=False)
        ax.set_xlim(lo - 0.5, hi + 0.5)
        ax.set_ylim(-0.5 - (1 if tl.more else 0), max(n, 1) - 0.5)
        right = blended_transform_factory(ax.transAxes, ax.transData)
        margin = dict(transform=right, va="center", ha="left", fontsize=7, clip_on=False)  # right of the axes
        group_x = 1 + (0.05 + (_CODE_W if codes else 0)) / axes_w
        start = 0  # the groups of lanes, every other one shaded
        for k, (group, members) in enumerate(groupby(lanes, key=lambda lane: lane.group)):
            size = len(list(members))
            y0, y1 = n - start - size - 0.5, n - 1 - start + 0.5
            if k % 2:
                ax.axhspan(y0, y1, color="#f0f0f0", zorder=0, lw=0)
            if size > 1:
                ax.text(group_x, (y0 + y1) / 2, f"{group} ({size})", **margin)
            start += size
        pins_x, pins_y = [], []
        for i, lane in enumerate(lanes):
            y = n - 1 - i
            polys, colors = [], []
            for spans, color in ((lane.marks, _DIFF), (lane.spans, _HOLDS), (lane.partial, _SOME)):
                for a, b in spans:
                    h = 0.42 if color == _DIFF else 0.32
                    polys.append([(a - 0.5, y - h), (b + 0.5, y - h), (b + 0.5, y + h), (a - 0.5, y + h)])
                    colors.append(color)
            coll = PolyCollection(polys, facecolors=colors, edgecolors="none", gid=f"lane-{i}")
            if lane.marks:
                coll.set_alpha(None)
                coll.set_facecolors([(*matplotlib.colors.to_rgb(c), 0.35 if c == _DIFF else 1.0) for c in colors])
            ax.add_collection(coll)
            if lane.marks and lane.run in codes:  # in the margin column, never over a bar
                ax.text(
                    1 + 0.06 / axes_w, y, codes[lane.run], fontweight="bold", color=_DIFF, gid=f"code-{i}", **margin
                )
            pins_x += list(lane.pins)
            pins_y += [y] * len(lane.pins)
        if pins_x:
            ax.scatter(pins_x, pins_y, marker="D", s=12, color=_PIN, zorder=5, gid="pins")
        ax.set_yticks(range(n), [_short(x.label) for x in reversed(lanes)], fontsize=7 if n < 60 else 6)
        if tl.more:
            more = f"… {tl.more} more atoms (raise --max-atoms, or select with --atoms)"
            ax.text(0.0, -1, more, transform=right, fontsize=7, va="center", ha="left", style="italic", color="#444444")
        if not n:
            empty = "no derived atom holds in this range"
            ax.text(0.5, 0.5, empty, transform=ax.transAxes, ha="center", va="center", color="#444444")
        ax.set_xlabel(tl.unit.replace("time point", "time point t", 1))
        ylabel = "derived atom" if len(tl.runs) == 1 else "derived atom · run"
        if 0.055 * len(ylabel) > lane_h - 0.1:  # a rotated label longer than its panel would meet the panel above
            ylabel = "atom" if len(tl.runs) == 1 else "atom · run"
        ax.set_ylabel(ylabel)
        ax.grid(axis="x", alpha=0.3)
        ax.set_axisbelow(True)
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=12 if not small else 7))
        if hi - lo < 12:
            ax.set_xticks(range(lo, hi + 1))
        if n > 40:  # a tall picture: the time points above the lanes too
            ax.tick_params(axis="x", top=True, labeltop=True)
        legend = [Patch(color=_HOLDS, label="holds (every answer stream)")]
        if any(x.partial for x in lanes):
            legend.append(Patch(color=_SOME, label="holds in some answer streams"))
        if pins_x:
            legend.append(Line2D([], [], marker="D", ls="", color=_PIN, label="pinned by an @-head"))
        if any(x.marks for x in lanes):
            legend.append(Patch(color=_DIFF, alpha=0.35, label=f"differs from {_short(tl.runs[0], 24)}"))
        axes[0].legend(
            handles=legend,
            loc="lower right",
            bbox_to_anchor=(1.0, 1.0),
            ncol=len(legend) if not small else min(len(legend), 2),
            fontsize=7,
            frameon=False,
            borderaxespad=0.2,
        )
        for i, (line, color) in enumerate(key):
            fig.text(0.01, (key_h - 0.16 * (i + 1)) / height, line, ha="left", va="bottom", fontsize=7, color=color)
        heading = "\n".join(title)
        fig.text(0.01, 1 - 0.08 / height, heading, ha="left", va="top", fontsize=8 if small else 10, fontweight="bold")
        if subtitle:
            top = 0.12 + 0.2 * len(title)
            fig.text(0.01, 1 - top / height, "\n".join(subtitle), ha="left", va="top", fontsize=8, color="#333333")
    return fig


def results_figure(results, width: float = 11.0, **options):
    """The figure of results (a run's, or one Result's); ``options``: those of :func:`.timeline.view`."""
    from .timeline import view

    return figure(view(results, **options), width=width)


def _top_panel(kind: str, ax, tl: Timeline, edges: list) -> None:
    from matplotlib.ticker import FixedLocator, MaxNLocator, NullLocator

    lo, hi = tl.start, tl.end
    if kind == "inputs":
        ax.stairs(tl.inputs, edges, fill=True, color="#7f7f7f", gid="inputs")
        ax.set_ylim(0, max(max(tl.inputs, default=0), 1) * 1.1)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=4))
    elif kind == "streams":
        counts = dict(tl.streams)
        values = [counts.get(t) for t in range(lo, hi + 1)]
        levels, limits = _stream_axis(tl)
        ax.set_yscale("log")
        shown = [_NONE if v == 0 else float("nan") if v is None else v for v in values]
        ax.stairs(shown, edges, color="#2ca02c", lw=1.2, gid="streams")
        ax.set_ylim(*limits)
        ax.yaxis.set_major_locator(FixedLocator(levels))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.set_yticklabels(["none" if v == _NONE else f"{v:g}" for v in levels])
        none = [t for t, v in zip(range(lo, hi + 1), values) if v == 0]
        if none:  # no answer stream: its own level below 1, a red x
            ax.scatter(none, [_NONE] * len(none), marker="x", color=_DIFF, s=16, zorder=3, gid="no-stream")
            ax.axhline(_NONE, color=_DIFF, lw=0.5, alpha=0.4)
    else:
        values = [len(runs) for _, runs in tl.differing]
        ax.stairs(values, edges, fill=True, color=_DIFF, alpha=0.6, gid="differing")
        ax.set_ylim(0, max(len(tl.runs) - 1, 1) + 0.2)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=4))
    ax.grid(axis="x", alpha=0.3)


#: where "no answer stream" sits on the log axis of answer streams per time point (below 1)
_NONE = 0.5
_TICK_INCH = 0.14  # the least distance of two tick labels


def _stream_axis(tl: Timeline) -> tuple:
    """``(levels, (low, high))``: the ticks of the answer-streams axis ("none" first if needed), its limits."""
    counts = [n for _, n in tl.streams if tl.start <= _ <= tl.end]
    ticks = stream_ticks(max(2, max(counts, default=1)))
    none = 0 in counts
    return ([_NONE] if none else []) + ticks, (_NONE * 0.7 if none else 0.7, ticks[-1] * 1.4)


def _stream_panel_inch(tl: Timeline) -> float:
    """The height the answer-streams axis needs so that its tick labels never meet."""
    import math

    low, high = _stream_axis(tl)[1]
    return math.log10(high / low) / math.log10(2) * _TICK_INCH + 0.12


def stream_ticks(top: int) -> list:
    """Ticks up to ``top`` or just past it: 1, 2, 5, 10, 20, 50, ...; beyond six, powers of ten only."""
    ticks, decade = [], 1
    while not ticks or ticks[-1] < top:
        ticks += [k * decade for k in (1, 2, 5)]
        decade *= 10
    ticks = ticks[: next(i for i, v in enumerate(ticks) if v >= top) + 1]
    if len(ticks) <= 6:
        return ticks
    powers = [v for v in ticks if str(v)[0] == "1"]
    return powers if powers[-1] >= top else powers + [powers[-1] * 10]


def save(fig, path: str | Path, fmt: str | None = None) -> None:
    """Write a figure as SVG or PNG (``fmt``, or the suffix of ``path``)."""
    import matplotlib

    fmt = fmt or Path(path).suffix.lstrip(".").lower()
    with matplotlib.rc_context(STYLE):
        fig.savefig(path, format=fmt, dpi=110, metadata={"Date": None} if fmt == "svg" else None)


def svg_text(fig) -> str:
    """The figure as SVG text (for inline HTML)."""
    import io

    buf = io.StringIO()
    save(fig, buf, "svg")
    text = buf.getvalue()
    return text[text.index("<svg") :]
