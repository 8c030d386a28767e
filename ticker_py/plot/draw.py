"""The matplotlib figure of a :class:`~ticker_py.plot.timeline.Timeline`, and writing figures.

Panels, top to bottom: the input atoms per time point (when known); the answer streams per
time point on a log scale (when some time point has more or fewer than one), or, for runs side
by side, how many runs differ from the reference; then the lanes: a bar for each interval of
time points in which the atom holds in every answer stream, a lighter hatched bar where it holds
in some, a diamond where an @-head pins it, and a red band where a run differs from the
reference, labelled with what explains it. Lanes are grouped by predicate (shaded alternately,
the predicate named on the right).

Figures are :class:`matplotlib.figure.Figure` objects made without pyplot (no global state, no
GUI backend). In an SVG every lane's bars are one group ``lane-N`` and text stays text.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from .timeline import Timeline

__all__ = ["figure", "results_figure", "save", "svg_text", "FORMATS", "LANE_INCH", "STYLE"]

#: the picture formats, by file suffix
FORMATS = ("svg", "png")
#: the height of one lane
LANE_INCH = 0.17
#: rcParams for every picture: text as text in SVG, reproducible files
STYLE = {"svg.fonttype": "none", "svg.hashsalt": "ticker", "font.size": 8, "axes.titlesize": 9}

_HOLDS, _SOME, _DIFF, _PIN = "#1f6fb4", "#9cc3e6", "#d62728", "#ff7f0e"
_MAX_LABEL = 44


def _short(text: str, limit: int = _MAX_LABEL) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _wrap(text: str, width: int) -> list:
    """Lines of at most ``width`` characters, words (paths, atoms) never split."""
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)


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
    tops = []
    if tl.inputs:
        tops.append("inputs")
    if len(tl.runs) > 1:
        tops.append("differing")
    elif tl.several:
        tops.append("streams")
    top_h = 0.55 if small else 0.8
    lane_h = max(0.6, LANE_INCH * (n + (1 if tl.more else 0)))
    label_w = min(3.2, max(1.1, 0.45 + 0.055 * max((len(_short(x.label)) for x in lanes), default=8)))
    title = _wrap(tl.title, int(width * (11 if not small else 13))) or [""]
    subtitle = _wrap(tl.subtitle, int(width * 16)) if not small else []
    head = 0.3 + 0.2 * len(title) + 0.16 * len(subtitle) + (0.1 if subtitle else 0)
    marked = {x.run for x in lanes if x.marks}
    key = [f"{r} vs {tl.runs[0]}: {tl.notes[r][1]}" for r in tl.runs[1:] if r in marked and r in tl.notes]
    key_h = 0.16 * len(key) + (0.1 if key else 0)
    height = head + (top_h + 0.05) * len(tops) + lane_h + 0.6 + key_h
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(width, height))
        left, right = label_w / width, 1 - 0.9 / width
        axes, y = [], height - head
        for h in [top_h] * len(tops) + [lane_h]:
            y -= h
            axes.append(fig.add_axes((left, y / height, right - left, (h - 0.12) / height)))
            y -= 0.05
        for other in axes[1:]:
            other.sharex(axes[0])
        ax = axes[-1]
        lo, hi = tl.start, tl.end
        edges = [t - 0.5 for t in range(lo, hi + 2)]
        for kind, top in zip(tops, axes):
            _top_panel(kind, top, tl, edges)
            top.tick_params(labelbottom=False)
        ax.set_xlim(lo - 0.5, hi + 0.5)
        ax.set_ylim(-0.5 - (1 if tl.more else 0), max(n, 1) - 0.5)
        shade = False
        group_start = 0
        right = blended_transform_factory(ax.transAxes, ax.transData)
        for i, lane in enumerate(lanes):
            last = i + 1 == n or lanes[i + 1].group != lane.group
            if last:
                y0, y1 = n - 1 - i - 0.5, n - 1 - group_start + 0.5
                if shade:
                    ax.axhspan(y0, y1, color="#f0f0f0", zorder=0, lw=0)
                size = i + 1 - group_start
                if size > 1:
                    ax.text(
                        1.005,
                        (y0 + y1) / 2,
                        f"{lane.group} ({size})",
                        transform=right,
                        va="center",
                        ha="left",
                        fontsize=7,
                        clip_on=False,
                    )
                shade, group_start = not shade, i + 1
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
            if lane.marks and lane.note:
                a, _ = lane.marks[0]
                ax.text(
                    a - 0.4,
                    y,
                    _short(lane.note, 40),
                    fontsize=6,
                    color=_DIFF,
                    va="center",
                    ha="left",
                    clip_on=True,
                    zorder=4,
                    bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "alpha": 0.75, "lw": 0},
                )
            pins_x += list(lane.pins)
            pins_y += [y] * len(lane.pins)
        if pins_x:
            ax.scatter(pins_x, pins_y, marker="D", s=12, color=_PIN, zorder=5, gid="pins")
        ax.set_yticks(range(n), [_short(x.label) for x in reversed(lanes)], fontsize=7 if n < 60 else 6)
        if tl.more:
            ax.text(
                0.0,
                -1,
                f"… {tl.more} more atoms (raise --max-atoms, or select with --atoms)",
                transform=blended_transform_factory(ax.transAxes, ax.transData),
                fontsize=7,
                va="center",
                ha="left",
                style="italic",
                color="#444444",
            )
        if not n:
            ax.text(
                0.5,
                0.5,
                "no derived atom holds in this range",
                transform=ax.transAxes,
                ha="center",
                va="center",
                color="#444444",
            )
        ax.set_xlabel(tl.unit.replace("time point", "time point t", 1))
        ax.set_ylabel("derived atom" if len(tl.runs) == 1 else "derived atom · run")
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
            legend.append(Patch(color=_DIFF, alpha=0.35, label=f"differs from {tl.runs[0]}"))
        axes[0].legend(
            handles=legend,
            loc="lower right",
            bbox_to_anchor=(1.0, 1.0),
            ncol=len(legend),
            fontsize=7,
            frameon=False,
            borderaxespad=0.2,
        )
        for i, line in enumerate(key):
            fig.text(0.01, (key_h - 0.16 * (i + 1)) / height, line, ha="left", va="bottom", fontsize=7, color=_DIFF)
        fig.text(
            0.01,
            1 - 0.08 / height,
            "\n".join(title),
            ha="left",
            va="top",
            fontsize=10 if not small else 8,
            fontweight="bold",
        )
        if subtitle:
            top = 0.12 + 0.2 * len(title)
            fig.text(0.01, 1 - top / height, "\n".join(subtitle), ha="left", va="top", fontsize=8, color="#333333")
    return fig


def results_figure(results, width: float = 11.0, **options):
    """The figure of results (a run's, or one :class:`~ticker_py.streams.model.Result`'s):
    ``options`` are those of :func:`~ticker_py.plot.timeline.view` (title, start, end, atoms,
    max_atoms)."""
    from .timeline import view

    return figure(view(results, **options), width=width)


def _top_panel(kind: str, ax, tl: Timeline, edges: list) -> None:
    from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter

    lo, hi = tl.start, tl.end
    if kind == "inputs":
        ax.stairs(tl.inputs, edges, fill=True, color="#7f7f7f", gid="inputs")
        ax.set_ylabel("input atoms\nper time point", fontsize=7)
        ax.set_ylim(0, max(max(tl.inputs, default=0), 1) * 1.1)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=4))
    elif kind == "streams":
        counts = dict(tl.streams)
        values = [counts.get(t, 0) for t in range(lo, hi + 1)]
        ax.stairs([v if v > 0 else float("nan") for v in values], edges, color="#2ca02c", lw=1.2, gid="streams")
        if max(values, default=0) > 0:  # a log axis needs a positive value (else matplotlib warns)
            ax.set_yscale("log")
        ax.set_ylim(0.8, max(max(values, default=1), 2) * 1.5)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        none = [t for t, v in zip(range(lo, hi + 1), values) if v == 0 and t in counts]
        if none:
            ax.scatter(none, [1] * len(none), marker="x", color=_DIFF, s=14, label="no answer stream", zorder=3)
            ax.legend(fontsize=6, loc="upper left", frameon=False)
        ax.set_ylabel("answer streams\nper time point", fontsize=7)
    else:
        values = [len(runs) for _, runs in tl.differing]
        ax.stairs(values, edges, fill=True, color=_DIFF, alpha=0.6, gid="differing")
        ax.set_ylim(0, max(len(tl.runs) - 1, 1) + 0.2)
        ax.set_ylabel(f"runs differing\nfrom {_short(tl.runs[0], 18)}", fontsize=7)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(axis="x", alpha=0.3)


def save(fig, path: str | Path, fmt: str | None = None) -> None:
    """Write a figure as SVG or PNG (``fmt``, or the suffix of ``path``)."""
    import matplotlib

    fmt = fmt or Path(path).suffix.lstrip(".").lower()
    with matplotlib.rc_context(STYLE):
        fig.savefig(path, format=fmt, dpi=110, metadata={"Date": None} if fmt == "svg" else None)


def svg_text(fig) -> str:
    """The figure as SVG text (for inline HTML)."""
    import io

    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context(STYLE):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.index("<svg") :]
