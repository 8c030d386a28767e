"""Pictures (docs/pictures.md): the timeline's data, its SVG structure, ``ticker plot``,
``compare --plot``, ``explain --format svg|png|html``, the HTML report and notebook views.

No test compares pixels: an SVG's structure (one group ``lane-N`` per lane, its bars, its texts)
is read as XML. The HTML report is rendered by a real browser in ``test_pictures_browser.py``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("matplotlib")

from ticker_py import run  # noqa: E402
from ticker_py.cli import main  # noqa: E402
from ticker_py.errors import UsageError  # noqa: E402
from ticker_py.plot import draw, html  # noqa: E402
from ticker_py.plot.select import select  # noqa: E402
from ticker_py.plot.timeline import from_results, from_runs  # noqa: E402
from ticker_py.streams.model import Model, Result  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


def models(*answer_streams):
    return tuple(Model(frozenset(atoms)) for atoms in answer_streams)


def svg_tree(fig):
    return ET.fromstring(draw.svg_text(fig))


def lanes_of(root) -> dict:
    """``{lane id: number of bars}`` of an SVG timeline."""
    return {
        g.get("id"): len(g.findall(f".//{SVG}path"))
        for g in root.iter(f"{SVG}g")
        if re.fullmatch(r"lane-\d+", g.get("id") or "")
    }


def texts(root) -> list:
    return [t.text for t in root.iter(f"{SVG}text") if t.text]


def ticker(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- the data


def test_intervals_levels_and_pins():
    q1, q2, p = ("q", 1), ("q", 2), ("p",)
    res = [
        (0, models({q1})),
        (1, models({q1, p}, {q1})),  # p in one of two answer streams
        (2, models({q1, p}, {q1, p})),
        (3, (Model(frozenset({p}), frozenset({(q2, 9)})),)),  # q(2) predicted at 9
        (4, ()),  # no answer stream
    ]
    tl = from_results(res, "t")
    by_atom = {lane.atom: lane for lane in tl.lanes}
    assert [lane.atom for lane in tl.lanes] == ["p", "q(1)", "q(2)"]  # by predicate, then terms
    assert by_atom["q(1)"].spans == ((0, 2),)
    assert by_atom["p"].spans == ((2, 3),) and by_atom["p"].partial == ((1, 1),)
    assert by_atom["q(2)"].spans == () and by_atom["q(2)"].pins == (9,)
    assert tl.streams == ((0, 1), (1, 2), (2, 2), (3, 1), (4, 0)) and tl.several
    assert (tl.start, tl.end) == (0, 4)
    row = dict(tl.rows)
    assert row[1][""] == (2, (("p", "q(1)"), ("q(1)",)))
    assert row[4][""] == (0, ())


def test_a_pin_where_the_atom_holds_anyway_is_not_drawn():
    a = ("a",)
    res = [(0, models({a})), (1, (Model(frozenset(), frozenset({(a, 0)})),))]  # a at 0, seen again at 1
    (lane,) = from_results(res).lanes
    assert lane.spans == ((0, 0),) and lane.pins == ()


def test_the_last_evaluation_of_a_time_point_counts_and_the_range_is_cut():
    res = [Result(0, 1, models({("a",)})), Result(0, 2, models({("b",)})), Result(1, 3, models({("b",)}))]
    tl = from_results(res)
    assert [lane.atom for lane in tl.lanes] == ["b"]
    tl = from_results([(t, models({("a",)})) for t in range(10)], start=3, end=5)
    assert tl.lanes[0].spans == ((3, 5),) and [t for t, _ in tl.rows] == [3, 4, 5]


def test_the_cap_counts_the_rest():
    res = [(0, models({("p", i) for i in range(10)}))]
    tl = from_results(res, max_atoms=4)
    assert [lane.atom for lane in tl.lanes] == ["p(0)", "p(1)", "p(2)", "p(3)"] and tl.more == 6
    assert from_results(res, max_atoms=None).more == 0


@pytest.mark.parametrize(
    "pattern,atom,expected",
    [
        ("alarm/0", ("alarm",), True),
        ("alarm/1", ("alarm",), False),
        ("q", ("q", 1, 2), True),
        ("q(a,_)", ("q", "a", 7), True),
        ("q(a,_)", ("q", "b", 7), False),
        ("q(a,_)", ("q", "a"), False),
        ("q(f(_),-1)", ("q", ("f", 3), -1), True),
        ('q("x y")', ("q", '"x y"'), True),
        ("p, q(_)", ("q", 1), True),
    ],
)
def test_atom_patterns(pattern, atom, expected):
    assert select(pattern).matches(atom) is expected


@pytest.mark.parametrize("pattern,col", [("q(", 3), ("Q", 1), ("q/x", 3), ("q(a,,b)", 5), ("a b", 3), ("q/-1", 3)])
def test_bad_atom_patterns_are_located(pattern, col):
    with pytest.raises(UsageError) as err:
        select(pattern)
    assert str(err.value).startswith(f"--atoms:1:{col}-{col + 1}: error: bad atom pattern")


def test_runs_side_by_side():
    a, b, c = ("a",), ("b",), ("c",)
    runs = {
        "default": {0: models({a, c}), 1: models({a, c}), 2: models({c})},
        "r4": {0: models({c}), 1: models({a, c}), 2: models({c})},
        "cql": {0: models({c}), 1: models({a, b, c}), 2: models({c})},
    }
    notes = {"r4": ("window_bounds", "window_bounds=half-open"), "cql": ("origin", "origin=first")}
    tl = from_runs(runs, "cmp", notes=notes)
    assert [(x.atom, x.run) for x in tl.lanes] == [
        ("a", "default"),
        ("a", "r4"),
        ("a", "cql"),
        ("b", "default"),
        ("b", "r4"),
        ("b", "cql"),
        ("c", ""),  # every run agrees on c: one collapsed lane
    ]
    lane = {(x.atom, x.run): x for x in tl.lanes}
    assert lane["a", "r4"].marks == ((0, 0),) and lane["a", "r4"].note == "window_bounds"
    assert lane["a", "cql"].marks == ((0, 0),)
    assert lane["b", "cql"].marks == ((1, 1),) and lane["b", "cql"].note == "origin"
    assert lane["a", "default"].marks == () and lane["c", ""].runs == ("default", "r4", "cql")
    assert tl.differing == ((0, ("r4", "cql")), (1, ("cql",)), (2, ()))
    assert (tl.differ, tl.agree) == (2, 1)


# ---------------------------------------------------------------- the SVG


def test_svg_structure_of_a_small_timeline():
    """The golden structure: one group per lane with one path per bar, the title, the subtitle,
    the axes' labels with units and every lane's label, the input and answer-stream panels."""
    res = [(0, models({("q", 1)})), (1, models({("q", 1), ("p",)}, {("q", 1)})), (2, models({("q", 1), ("p",)}))]
    tl = from_results(res, "prog.lars over s.stream", "engine native · t = 0–2", inputs={0: 2, 1: 0, 2: 5})
    root = svg_tree(draw.figure(tl))
    assert lanes_of(root) == {"lane-0": 2, "lane-1": 1}  # p: one full bar and one partial; q(1): one
    found = texts(root)
    # two lanes: the rotated axis label is "atom" (a longer one would reach into the panel above)
    for text in ("prog.lars over s.stream", "engine native · t = 0–2", "time point t", "atom", "p", "q(1)"):
        assert text in found, text
    assert "input atoms\nper time point" in found or "input atoms" in " ".join(found)
    ids = {g.get("id") for g in root.iter(f"{SVG}g")}
    assert {"inputs", "streams"} <= ids
    assert "holds in some answer streams" in found


def test_a_large_timeline_has_every_lane():
    """1,000 time points x 200 atoms: the picture has 200 lanes (its CPU time is measured in the
    report, not asserted here)."""
    atoms = [("p", i) if i % 2 else ("q", "a", i) for i in range(200)]
    res = [(t, models({a for i, a in enumerate(atoms) if (t // (5 + i % 7) + i) % 3})) for t in range(1000)]
    tl = from_results(res, "large", inputs={t: t % 50 for t in range(1000)}, max_atoms=None)
    root = svg_tree(draw.figure(tl))
    assert len(lanes_of(root)) == 200 and tl.more == 0


def test_the_cap_is_said_in_the_picture():
    tl = from_results([(0, models({("p", i) for i in range(30)}))], "capped", max_atoms=5)
    root = svg_tree(draw.figure(tl))
    assert len(lanes_of(root)) == 5
    assert any(t.startswith("… 25 more atoms") for t in texts(root))


def laid_out(fig):
    """``(texts, bars)``: the display boxes of every visible text of a drawn figure (with its text)
    and of every lane's bar."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import PolyCollection
    from matplotlib.text import Text

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    hidden = set()  # tick labels outside the view limits, which are not drawn
    for ax in fig.axes:
        for axis, labels, (lo, hi) in (
            (0, ax.get_xticklabels(), ax.get_xlim()),
            (1, ax.get_yticklabels(), ax.get_ylim()),
        ):
            hidden |= {id(t) for t in labels if not min(lo, hi) <= t.get_position()[axis] <= max(lo, hi)}
    boxes = [
        (t.get_text(), t.get_window_extent(renderer))
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and id(t) not in hidden
    ]
    bars = []
    for coll in fig.findobj(PolyCollection):
        if re.fullmatch(r"lane-\d+", coll.get_gid() or ""):
            bars += [path.transformed(coll.get_transform()).get_extents() for path in coll.get_paths()]
    return boxes, bars


def meet(a, b, slack: float = 1.0) -> bool:
    return a.x0 + slack < b.x1 and b.x0 + slack < a.x1 and a.y0 + slack < b.y1 and b.y0 + slack < a.y1


def overlaps(fig) -> list:
    """The pairs of texts that meet, and the texts that meet a bar."""
    boxes, bars = laid_out(fig)
    out = [(a, b) for i, (a, ba) in enumerate(boxes) for b, bb in boxes[i + 1 :] if meet(ba, bb)]
    return out + [(text, "a bar") for text, box in boxes for bar in bars if meet(box, bar)]


SIX_RUNS = {
    "default": {0: models({("a",), ("seen",)}), 1: models({("a",)}), 2: models({("b",)})},
    "lars": {0: None, 1: models({("seen",)}, {("a",)}), 2: models({("b",), ("seen",)})},
    "ticker": {0: models({("a",)}), 1: models({("a",)}), 2: models({("b",)})},
    "cql": {0: None, 1: models(), 2: models({("b",), ("a",)})},
    "default,window_bounds=half-open": {0: models({("seen",)}), 1: models({("a",)}), 2: models()},
}
SIX_NOTES = {
    "lars": ("origin+tuple_ties+future_heads", "origin=first, tuple_ties=choice, future_heads=inconsistent"),
    "ticker": ("duplicates", "duplicates=bag"),
    "cql": ("origin+tuple_scope+tuple_ties+duplicates", "origin=first, tuple_scope=predicate, tuple_ties=choice"),
    "default,window_bounds=half-open": ("window_bounds", "window_bounds=half-open"),
}


@pytest.mark.parametrize("small", [False, True])
def test_difference_codes_sit_in_a_margin_column_never_over_a_bar(small):
    """Each marked lane's code (A, B, ...) is drawn right of the bars and explained in the key; no
    text meets another text or a bar, at full and at notebook size."""
    tl = from_runs(SIX_RUNS, "five semantics", inputs={0: 2, 1: 1, 2: 0}, notes=SIX_NOTES)
    fig = draw.figure(tl, width=8.0 if small else 11.0, small=small)
    assert overlaps(fig) == []
    codes = draw.codes_of(tl)
    assert list(codes.values()) == ["A", "B", "C", "D"][: len(codes)] and "lars" in codes
    found = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))]
    assert f"{codes['lars']}: lars vs default — {SIX_NOTES['lars'][1]}" in found
    ax = fig.axes[-1]
    right = ax.get_window_extent().x1
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    marks = [t for t in ax.texts if t.get_gid() and t.get_gid().startswith("code-")]
    assert marks and all(t.get_window_extent(renderer).x0 > right for t in marks)


def test_notebook_timeline_with_every_panel_has_no_overlapping_labels():
    """Inputs, answer streams per time point (with a time point of none) and lanes at notebook size."""
    res = [(0, models({("use", "a")}, {("use", "b")}, {("skip", "a")})), (1, models()), (2, models({("ok",)}))]
    tl = from_results(res, "answer streams", inputs={0: 1, 1: 0, 2: 3})
    assert overlaps(draw.figure(tl, width=8.0, small=True)) == []


@pytest.mark.parametrize("small", [False, True])
def test_every_label_lies_inside_the_picture(small):
    """Short atoms under the top panels' labels: the labels and their ticks ('none', '10') fit left
    of the axes, none is cut at the picture's edge."""
    res = [(0, models(*({("p", i)} for i in range(8)))), (1, models()), (2, models({("ok",)}))]
    fig = draw.figure(from_results(res, "t", inputs={0: 12, 1: 0, 2: 1}), width=8.0 if small else 11.0, small=small)
    boxes, _ = laid_out(fig)
    edge, width = 0.04 * fig.dpi, fig.get_figwidth() * fig.dpi  # a margin of 0.04 inch
    assert [text for text, box in boxes if box.x0 < edge or box.x1 > width - edge] == []


def test_answer_streams_axis_reads_1_2_5_and_none():
    res = [(0, models({("a",)}, {("b",)})), (1, models()), (2, models(*({("p", i)} for i in range(13))))]
    fig = draw.figure(from_results(res, "t"))
    panel = next(a for a in fig.axes if any(c.get_gid() == "streams" for c in a.get_children()))
    assert [t.get_text() for t in panel.get_yticklabels()] == ["none", "1", "2", "5", "10", "20"]
    assert any(c.get_gid() == "no-stream" for c in panel.get_children())  # the x where there is none
    assert draw.stream_ticks(1) == [1] and draw.stream_ticks(3) == [1, 2, 5]
    assert draw.stream_ticks(5000) == [1, 10, 100, 1000, 10000]


def test_one_time_point_has_one_tick():
    fig = draw.figure(from_results([(4, models({("a",)}))], "t"))
    assert [t.get_text() for t in fig.axes[-1].get_xticklabels()] == ["4"]


# ---------------------------------------------------------------- the commands


@pytest.fixture
def alarm(tmp_path):
    prog = tmp_path / "alarm.lars"
    prog.write_text(
        "warm :- temp(V) in [3], V > 30.\nalarm at T :- smoke(S) at T in [2 #], S >= 5.\n"
        "alert :- warm, alarm in [3].\nq(X) :- temp(X) in [1].\n"
    )
    stream = tmp_path / "alarm.stream"
    stream.write_text("0: temp(25)\n1: temp(34), smoke(7)\n2: temp(30)\n3: temp(28)\n4:\n5: temp(31)\n")
    return prog, stream


def test_plot_svg_png_html(capsys, tmp_path, alarm):
    prog, stream = alarm
    code, out, err = ticker(capsys, "plot", prog, "--stream", stream, "--out", tmp_path / "a.svg")
    assert (code, out, err) == (0, "", "")
    root = ET.parse(tmp_path / "a.svg").getroot()
    labels = texts(root)
    assert len(lanes_of(root)) == 8  # alarm, alert, q(25), q(28), q(30), q(31), q(34), warm
    joined = " ".join(" ".join(t.split()) for t in labels)  # a long title is wrapped
    assert f"ticker plot {prog} --stream {stream}" in joined
    assert "engine native" in joined and "t = 0–5 (6 time points)" in joined
    assert ticker(capsys, "plot", prog, "--stream", stream, "--out", tmp_path / "a.png")[0] == 0
    assert (tmp_path / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert ticker(capsys, "plot", prog, "--stream", stream, "--out", tmp_path / "a.html")[0] == 0
    page = (tmp_path / "a.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and 'id="answers"' in page
    assert page.count('<td class="t">') == 12  # t and the count of 6 time points
    assert not re.search(r"""(src|href)=["']https?:|url\(https?:|@import|<link""", page)  # no network


def test_plot_selects_atoms_and_time(capsys, tmp_path, alarm):
    prog, stream = alarm
    out = tmp_path / "a.svg"
    code, _, err = ticker(
        capsys, "plot", prog, "--stream", stream, "--out", out, "--atoms", "q(_),alert/0", "--from", "2", "--until", "4"
    )
    assert code == 0, err
    root = ET.parse(out).getroot()
    # q(25) holds at 0 and 1, q(31) at 5 only: outside 2..4; warm and alarm are not selected
    assert {t for t in texts(root) if t.startswith(("q(", "alert", "warm", "alarm"))} == {
        "q(34)",
        "q(30)",
        "q(28)",
        "alert",
    }
    assert any("t = 2–4" in t and "atoms q(_),alert/0" in t for t in texts(root))


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--out", "x.txt"], "--out 'x.txt': cannot tell the picture format from the suffix"),
        (["--out", "x.svg", "--atoms", "q(a"], "--atoms:1:4-5: error: bad atom pattern 'q(a': ')' expected"),
        (["--out", "x.svg", "--atoms", "nosuch/2"], "--atoms 'nosuch/2': the program has no predicate nosuch/2"),
        (["--out", "x.svg", "--from", "5", "--until", "2"], "--from 5 is after --until 2"),
        (["--out", "x.svg", "--max-atoms", "-1"], "--max-atoms must be an integer >= 0, not -1"),
        (["--out", "nodir/x.svg"], "cannot write to 'nodir/x.svg'"),
    ],
)
def test_plot_refuses_bad_arguments(capsys, tmp_path, alarm, monkeypatch, argv, message):
    prog, stream = alarm
    monkeypatch.chdir(tmp_path)
    code, out, err = ticker(capsys, "plot", prog, "--stream", stream, *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_plot_refuses_to_overwrite_an_input(capsys, alarm):
    prog, stream = alarm
    svg = stream.with_suffix(".svg")
    svg.write_text("0: p\n")
    code, _, err = ticker(capsys, "plot", prog, "--stream", svg, "--out", svg)
    assert code == 2 and "is the --stream file" in err and svg.read_text() == "0: p\n"


SEMANTICS = """
recent(S) :- temp(S, V) in [2 #], V > 30.
steady :- on always [2].
seen :- door in [1].
check at U :- door at T in [1], U = T + 1.
"""
SEMANTICS_STREAM = "2: on, temp(a,35), door, temp(b,20)\n3: on, temp(b,20), temp(a,31), temp(b,20)\n4: on\n5:\n"


def test_compare_semantics_plot(capsys, tmp_path):
    prog, stream = tmp_path / "s.lars", tmp_path / "s.stream"
    prog.write_text(SEMANTICS)
    stream.write_text(SEMANTICS_STREAM)
    out = tmp_path / "cmp.svg"
    code, text, err = ticker(
        capsys, "compare", prog, "--stream", stream, "--semantics", "default,ticker,default+window_bounds=half-open",
        "--engines", "clingo", "--plot", out,
    )  # fmt: skip
    assert code == 3 and "time points differ" in text, err
    root = ET.parse(out).getroot()
    lanes = texts(root)
    # recent(a) differs (ticker counts the duplicate), seen/check/steady differ (half-open): 3 lanes each
    assert len(lanes_of(root)) == 12
    assert "recent(a) · ticker" in lanes and "seen · default,window_bounds=half-open" in lanes
    # the marks' codes in the margin column, explained by the knobs in the key under the picture
    assert lanes.count("A") == 1 and lanes.count("B") == 3
    assert "A: ticker vs default — duplicates=bag" in lanes
    assert "B: default,window_bounds=half-open vs default — window_bounds=half-open" in lanes
    assert "duplicates" not in lanes and "window_bounds" not in lanes  # no label over the bars
    title = " ".join(" ".join(t.split()) for t in lanes)  # the title names every option that shaped the run
    assert (
        f"ticker compare {prog} --stream {stream} --semantics default,ticker,default+window_bounds=half-open" in title
    )
    assert "--engines clingo" in title and "--plot" not in title and str(out) not in title


def test_compare_engines_report(capsys, tmp_path, alarm):
    prog, stream = alarm
    out = tmp_path / "cmp.html"
    code, text, err = ticker(capsys, "compare", prog, "--stream", stream, "--engines", "clingo,native", "--plot", out)
    assert code == 0, err
    page = out.read_text()
    assert page.index("<h2>Differences</h2>") < page.index("<h2>Timeline</h2>") < page.index("<h2>Answer streams")
    assert "0 of 6 time points differ" in page and "only where the runs differ" in page
    assert 'id="inputs"' in page  # the input atoms per time point, counted as the engines read them


def test_compare_plot_refuses_what_it_cannot_draw(capsys, tmp_path, alarm):
    prog, stream = alarm
    code, _, err = ticker(capsys, "compare", prog, "--stream", stream, "--changes", "--plot", tmp_path / "x.svg")
    assert code == 2 and "--plot draws answer streams" in err


def test_explain_pictures(capsys, tmp_path, alarm):
    prog, stream = alarm
    for suffix in ("svg", "png", "html"):
        out = tmp_path / f"why.{suffix}"
        code, text, err = ticker(capsys, "explain", prog, "--stream", stream, "--at", 2, "alert", "--out", out)
        assert code == 0 and text == "", err
    svg = (tmp_path / "why.svg").read_text()
    assert "<svg" in svg and "why alert: t=2" in svg
    page = (tmp_path / "why.html").read_text()
    for part in ("<h2>Derivation</h2>", "<h2>As text</h2>", 'id="nodes"', "<h2>Answer streams per time point</h2>"):
        assert part in page
    code, _, err = ticker(
        capsys, "explain", prog, "--stream", stream, "--at", 2, "alert", "--format", "svg", "--out", tmp_path / "x.png"
    )
    assert code == 2 and "--format svg does not match --out" in err


def test_explain_without_dot_draws_with_matplotlib(capsys, tmp_path, alarm, monkeypatch):
    import shutil

    prog, stream = alarm
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    out = tmp_path / "why.svg"
    code, _, err = ticker(capsys, "explain", prog, "--stream", stream, "--at", 2, "alert", "--out", out)
    assert code == 0 and "note: graphviz's dot program" in err
    root = ET.parse(out).getroot()
    found = texts(root)
    assert "why alert: t=2 c=4, answer stream 1 of 1" in found and "time point" in found
    assert any(g.get("id", "").startswith("span-") for g in root.iter(f"{SVG}g"))  # window spans drawn


def test_the_explanation_svg_keeps_its_indentation_in_a_browser(alarm):
    """A browser collapses leading spaces of an SVG text: each row's depth is its x position, and
    the spaces within a row are non-breaking, so the SVG reads as the PNG does."""
    from ticker_py.api import explain_at
    from ticker_py.explain import render

    e = explain_at(*alarm, 2, "alert")
    data, _ = render.picture(e, "svg", graph=False)
    root = ET.fromstring(data)
    rows = e.rows()
    monospace = [t for t in root.iter(f"{SVG}text") if "monospace" in (t.get("style") or "")]
    assert len(monospace) == len(rows)
    for r, t in zip(rows, monospace):  # a long row is cut with "…"
        whole = r.text.replace("  ", "\u00a0\u00a0")
        assert t.text == whole or (t.text.endswith("…") and whole.startswith(t.text[:-1]))
    assert not any(t.text.startswith(" ") for t in monospace)
    x = {r.depth: float(t.get("x")) for r, t in zip(rows, monospace)}
    assert len({r.depth for r in rows}) >= 4 and sorted(x.values()) == [x[d] for d in sorted(x)]
    step = x[1] - x[0]
    assert step > 5 and all(abs(x[d] - x[0] - d * step) < 0.01 for d in x)  # two characters a level


def test_an_explanation_at_one_time_point_has_one_tick():
    from ticker_py.api import explain_at
    from ticker_py.explain import render

    fig = render.figure(explain_at("q :- p.", [(0, ["p"])], 0, "q"))
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["0"]


def test_the_graph_gives_every_window_cell_one_fixed_width(alarm):
    """Without dot too: the DOT source's strips are tables of fixed-size cells of one width per
    strip (graphviz sized each cell by its text: '1-2' wider than '3')."""
    from ticker_py.api import explain_at
    from ticker_py.explain import render

    prog, stream = alarm
    dot = render.to_rich_dot(explain_at(prog, stream, 2, "alert"))
    strips = re.findall(r'<TABLE BORDER="0" CELLBORDER="1"[^>]*>(.*?)</TABLE>', dot)
    assert strips
    for strip in strips:
        cells = re.findall(r"<TD ([^>]*)>", strip)
        assert cells and all('FIXEDSIZE="TRUE"' in c for c in cells)
        assert len({re.search(r'WIDTH="(\d+)"', c).group(1) for c in cells}) == 1, strip
    long = render._strip((0, 40), (3, 17))  # grouped cells ('0-1', ..., '40') of one width
    assert len(set(re.findall(r'<TD [^>]*WIDTH="(\d+)"', long))) == 1 and "40</FONT>" in long


def test_explain_with_dot_draws_the_graph(tmp_path, alarm):
    import shutil

    from ticker_py.api import explain_at
    from ticker_py.explain import render

    if shutil.which("dot") is None:
        pytest.skip("graphviz's dot program is not installed")
    prog, stream = alarm
    e = explain_at(prog, stream, 2, "alert")
    data, note = render.picture(e, "svg")
    assert note == "" and b'class="graph"' in data and b"warm at 2" in data
    dot = render.to_rich_dot(e)
    assert dot.count("BGCOLOR=") >= 3 and "->" in dot
    # every window cell of every strip has one width, however long the text above it
    widths = set()
    for polygon in ET.fromstring(data).iter(f"{SVG}polygon"):
        if polygon.get("fill") in ("#9cc3e6", "#1f6fb4"):
            xs = [float(p.split(",")[0]) for p in polygon.get("points").split()]
            widths.add(round(max(xs) - min(xs), 1))
    assert len(widths) == 1, widths


# ---------------------------------------------------------------- the API and notebooks


def test_results_plot_and_notebook_views(alarm):
    prog, stream = alarm
    res = run(prog, stream, explainable=True)
    fig = res.plot(atoms="q(_)")
    labels = [t.get_text() for t in fig.axes[-1].get_yticklabels()]
    assert sorted(labels) == ["q(25)", "q(28)", "q(30)", "q(31)", "q(34)"]
    view = res._repr_html_()
    assert "<table" in view and "<svg" in view and "engine native" in view
    one = res[2]._repr_html_()
    assert "answer stream at t = 2" in one and "<svg" in one
    e = res[2].explain("alert")
    assert "<svg" in e._repr_html_() and "why alert" in e._repr_html_()
    assert res.inputs == {0: 1, 1: 2, 2: 1, 3: 1, 4: 0, 5: 1}


def test_notebook_view_without_matplotlib(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    view = html.results_html([Result(0, 1, models({("a",)}))])
    assert "<table" in view and "<svg" not in view and "pip install" in view


def test_compare_writes_its_report_with_out_as_plot_and_explain_do(capsys, tmp_path, alarm):
    prog, stream = alarm
    out = tmp_path / "report.html"
    code, _, err = ticker(capsys, "compare", prog, "--stream", stream, "--engines", "clingo,native", "--out", out)
    assert code == 0, err
    assert "<h2>Differences</h2>" in out.read_text()
    code, _, err = ticker(capsys, "compare", prog, "--stream", stream, "--out", out, "--plot", tmp_path / "other.svg")
    assert code == 2 and not (tmp_path / "other.svg").exists()  # one picture: --out and --plot are one option
