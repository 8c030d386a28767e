"""Self-contained HTML (pictures, style and script inline, nothing fetched): the report page of a
timeline (or an explanation) and compact notebook views."""

from __future__ import annotations

from html import escape

from .timeline import Timeline

__all__ = [
    "page",
    "report",
    "answer_table",
    "differences",
    "compact",
    "compact_figure",
    "comparison_html",
    "results_html",
    "section",
]

#: the tables' style (class names prefixed, so that a notebook's own style is left alone)
_TABLE_STYLE = """
table.tk{border-collapse:collapse;font:12px/1.35 ui-monospace,Menlo,Consolas,monospace}
table.tk th,table.tk td{border:1px solid #ddd;padding:2px 6px;vertical-align:top;text-align:left}
table.tk th{background:#f4f4f4;position:sticky;top:0} table.tk tr.differs td{background:#fff1f0}
table.tk td.t{text-align:right;color:#555} .tk-m{display:block} .tk-more{color:#777;font-style:italic}
.tk-fig{overflow-x:auto} .tk-fig svg{height:auto} .tk-note{color:#a33}
pre.tk{font:12px/1.35 ui-monospace,Menlo,Consolas,monospace;background:#f8f8f8;padding:.6em;overflow:auto}
"""
_STYLE = (
    """
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em;color:#222;background:#fff}
h1{font-size:1.3em;margin:0 0 .2em} h2{font-size:1.1em;margin:1.4em 0 .4em;border-bottom:1px solid #ddd}
p.sub{color:#444;margin:0 0 1em} .filter{margin:.3em 0 .6em} .filter input[type=search]{width:24em}
"""
    + _TABLE_STYLE
)

_SCRIPT = """
document.querySelectorAll('.filter').forEach(function (box) {
  var table = document.getElementById(box.dataset.table);
  var text = box.querySelector('input[type=search]'), only = box.querySelector('input[type=checkbox]');
  var count = box.querySelector('.count');
  function apply() {
    var words = text.value.toLowerCase().split(/\\s+/).filter(Boolean), shown = 0, rows = table.tBodies[0].rows;
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i], hay = row.textContent.toLowerCase();
      var keep = words.every(function (w) { return hay.indexOf(w) >= 0; });
      if (only && only.checked) keep = keep && row.classList.contains('differs');
      row.hidden = !keep; if (keep) shown++;
    }
    count.textContent = shown + ' of ' + rows.length + ' rows';
  }
  text.addEventListener('input', apply); if (only) only.addEventListener('change', apply); apply();
});
"""


def page(title: str, subtitle: str, sections) -> str:
    """A whole HTML document: ``sections`` are HTML fragments (see :func:`section`)."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>\n<body>\n"
        f"<h1>{escape(title)}</h1>\n"
        + (f'<p class="sub">{escape(subtitle)}</p>\n' if subtitle else "")
        + "\n".join(sections)
        + f"\n<script>{_SCRIPT}</script>\n</body></html>\n"
    )


def section(heading: str, body: str) -> str:
    return f"<h2>{escape(heading)}</h2>\n{body}"


def _models_cell(cell, limit: int | None = None) -> str:
    if cell is None:
        return '<span class="tk-more">not evaluated</span>'
    count, models = cell
    if count == 0:
        return '<span class="tk-more">no answer stream</span>'
    shown = models if limit is None else models[:limit]
    out = "".join(f'<span class="tk-m">{{{escape(", ".join(m))}}}</span>' for m in shown)
    if count > len(shown):
        out += f'<span class="tk-more">… {count - len(shown)} more answer streams</span>'
    return out


def _header(tl: Timeline) -> str:
    if len(tl.runs) == 1:
        return "<tr><th>t</th><th>answer streams</th><th>atoms (one answer stream a line)</th></tr>"
    return "<tr><th>t</th>" + "".join(f"<th>{escape(r)}</th>" for r in tl.runs) + "</tr>"


def _row(tl: Timeline, t: int, cells: dict, differs: bool, limit: int | None = None) -> str:
    cls = ' class="differs"' if differs else ""
    if len(tl.runs) == 1:
        cell = cells[tl.runs[0]]
        n = "–" if cell is None else str(cell[0])
        return f'<tr{cls}><td class="t">{t}</td><td class="t">{n}</td><td>{_models_cell(cell, limit)}</td></tr>'
    columns = "".join(f"<td>{_models_cell(cells[r], limit)}</td>" for r in tl.runs)
    return f'<tr{cls}><td class="t">{t}</td>{columns}</tr>'


def answer_table(tl: Timeline) -> str:
    """The answer streams per time point, with a filter box."""
    differing = dict(tl.differing)
    only = '<label><input type="checkbox"> only where the runs differ</label> ' if len(tl.runs) > 1 else ""
    body = "\n".join(_row(tl, t, cells, bool(differing.get(t))) for t, cells in tl.rows)
    return (
        '<div class="filter" data-table="answers"><input type="search" placeholder="filter: words every row must'
        f' contain, e.g. alarm">  {only}<span class="count"></span></div>\n' + _table(tl, "answers", body)
    )


def differences(tl: Timeline) -> str:
    """For runs side by side: what explains each run's differences, and the differing time points."""
    differing = [t for t, runs in tl.differing if runs]
    counts = {r: sum(1 for _, runs in tl.differing if r in runs) for r in tl.runs[1:]}
    per_run = _list(
        f"<b>{escape(r)}</b> differs from {escape(tl.runs[0])} at {counts[r]} time point"
        + ("" if counts[r] == 1 else "s")
        + (f" — {escape(tl.notes[r][1])}" if counts[r] and r in tl.notes else "")
        for r in tl.runs[1:]
    )
    per_run += _unavailable(tl)
    summary = (
        f"<p>{len(differing)} of {len(tl.rows)} time points differ; {tl.differ} atoms differ, {tl.agree} agree.</p>"
    )
    if not differing:
        return summary + per_run
    keyed = dict(tl.rows)
    rows = "\n".join(_row(tl, t, keyed[t], True) for t in differing if t in keyed)
    return summary + per_run + _table(tl, "differences", rows)


def _unavailable(tl: Timeline) -> str:
    """The runs that could not read the program, each with its located reason."""
    if not tl.unavailable:
        return ""
    return _list(
        (f"<b>{escape(r)}</b>: not applicable — {escape(why)}" for r, why in tl.unavailable.items()), "tk-note"
    )


def _list(items, cls: str = "") -> str:
    return (f'<ul class="{cls}">' if cls else "<ul>") + "".join(f"<li>{item}</li>" for item in items) + "</ul>"


def _table(tl: Timeline, table_id: str, body: str) -> str:
    return f'<table class="tk" id="{table_id}"><thead>{_header(tl)}</thead><tbody>\n{body}\n</tbody></table>'


def report(tl: Timeline, svg: str) -> str:
    """The report of a timeline: differences first (runs side by side), the timeline, the table."""
    sections = []
    if len(tl.runs) > 1:
        sections.append(section("Differences", differences(tl)))
    sections.append(section("Timeline", f'<div class="tk-fig">{svg}</div>'))
    sections.append(section("Answer streams per time point", answer_table(tl)))
    return page(tl.title, tl.subtitle, sections)


def compact_figure(make) -> tuple:
    """``(svg, note)``: the SVG of the figure ``make()`` draws, or, without matplotlib, None and a
    note (HTML) saying how to get the picture."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return None, '<div class="tk-note">install matplotlib (pip install "ticker_py[plot]") for the picture</div>'
    from .draw import svg_text

    return svg_text(make()), ""


def compact(tl: Timeline, width: float, note: str = "", rows: int = 12) -> str:
    """A notebook's view: the title, the first table rows and a small timeline ``width`` inches wide
    (``note``: HTML before the picture's)."""
    from .draw import figure

    svg, missing = compact_figure(lambda: figure(tl, width=width, small=True))
    body = "\n".join(_row(tl, t, cells, False, 4) for t, cells in tl.rows[:rows])
    more = (
        f'<tr><td colspan="{len(tl.runs) + 2}" class="tk-more">… {len(tl.rows) - rows} more time points</td></tr>'
        if len(tl.rows) > rows
        else ""
    )
    picture = f'<div class="tk-fig">{svg}</div>' if svg else ""
    return (
        f"<div><style>{_TABLE_STYLE}</style><b>{escape(tl.title)}</b>"
        + (f'<div class="tk-more">{escape(tl.subtitle)}</div>' if tl.subtitle else "")
        + f'<table class="tk"><thead>{_header(tl)}</thead><tbody>{body}{more}</tbody></table>{picture}{note}{missing}</div>'
    )


def comparison_html(tl: Timeline) -> str:
    """The ``_repr_html_`` of a comparison: :func:`compact` with the runs that could not read the program."""
    return compact(tl, 9.0, _unavailable(tl))


def results_html(results) -> str:
    """The ``_repr_html_`` of results (a run's, or one Result's): :func:`compact`, at most 20 atoms."""
    from .timeline import view

    return compact(view(results, max_atoms=20), 8.0)
