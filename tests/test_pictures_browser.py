"""The HTML report in a real browser: chromium (headless) renders ``ticker plot --out report.html``
and ``ticker compare --plot``'s report; the screenshot must not be blank and the page's script
(the table filter) must have run. Skipped where no chromium is installed (CI installs it from
Debian packages, .ci/run)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

pytest.importorskip("matplotlib")

from ticker_py.cli import main  # noqa: E402

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
BROWSER = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no chromium installed (apt-get install -y chromium; .ci/run does so where apt is there)"
)


def browse(tmp_path, page, *options) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    argv = [
        BROWSER,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        *options,
        page.as_uri(),
    ]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)


def not_blank(png) -> float:
    """The share of pixels that are not the page's white."""
    from matplotlib.image import imread

    pixels = imread(png)[:, :, :3]
    return float((pixels.min(axis=2) < 0.9).mean())


@pytest.fixture
def report(tmp_path):
    prog, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text("a :- not b. b :- not a.\nq(X) :- p(X) in [2].\nalarm :- q(X), X > 5.\n")
    stream.write_text("".join(f"{t}: p({t % 9})\n" for t in range(30)))
    out = tmp_path / "report.html"
    assert main(["plot", str(prog), "--stream", str(stream), "--out", str(out)]) == 0
    return out


def test_the_report_renders(tmp_path, report):
    shot = tmp_path / "shot.png"
    proc = browse(tmp_path, report, f"--screenshot={shot}", "--window-size=1200,1600")
    assert shot.exists(), proc.stderr[-2000:]
    assert not_blank(shot) > 0.03  # title, the timeline's bars, the table


def test_the_reports_filter_runs(tmp_path, report):
    proc = browse(tmp_path, report, "--dump-dom")
    assert "30 of 30 rows" in proc.stdout, proc.stderr[-2000:]  # written by the page's script


def test_the_compare_report_renders(tmp_path):
    prog, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text("q :- p in [1].\nr :- not q in [1].\n")
    stream.write_text("0: p\n1:\n2:\n3:\n")
    out, shot = tmp_path / "cmp.html", tmp_path / "cmp.png"
    argv = ["compare", str(prog), "--stream", str(stream), "--semantics", "default,r4,default+window_bounds=half-open"]
    assert main([*argv, "--plot", str(out)]) == 3  # r4 cannot read the negation: the other two are compared
    browse(tmp_path, out, f"--screenshot={shot}", "--window-size=1200,1200")
    assert not_blank(shot) > 0.03
    dom = browse(tmp_path, out, "--dump-dom").stdout
    assert "4 of 4 rows" in dom and "r4</b>: not applicable — " in dom and "negation 'not q in [1]'" in dom


def test_the_explanation_svg_keeps_its_indentation_in_the_browser(tmp_path):
    """The matplotlib explanation as SVG, rendered by chromium: the rows of the tree start at their
    depth's indentation (the left edge of each line of text, measured in the screenshot)."""
    import numpy as np

    from ticker_py.api import explain_at
    from ticker_py.explain import render
    from ticker_py.plot.draw import save

    e = explain_at("a :- b.\nb :- c.\nc :- p.\n", [(0, ["p"])], 0, "a")
    page, shot = tmp_path / "why.svg", tmp_path / "why.png"
    fig = render.figure(e)
    save(fig, page, "svg")
    width, height = (int(v * 100) for v in fig.get_size_inches())
    browse(tmp_path, page, f"--screenshot={shot}", f"--window-size={width},{height}", "--hide-scrollbars")
    from matplotlib.image import imread

    pixels = imread(shot)[:, : width // 2, :3].min(axis=2) < 0.6  # the tree's text, left half
    lines, current = [], []  # the left edge of each line of text (dark rows between blank ones)
    for row in pixels:
        if row.any():
            current.append(int(np.argmax(row)))
        elif current:
            lines.append(min(current))
            current = []
    rows = e.rows()
    assert len({r.depth for r in rows}) >= 4
    edges = sorted(set(lines[1:]))  # the title first
    levels = [x for i, x in enumerate(edges) if i == 0 or x - edges[i - 1] > 5]  # glyphs differ by a pixel or two
    assert len(levels) >= 4, edges  # as many left edges as depths: the indentation is kept
