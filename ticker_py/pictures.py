"""What ``ticker plot`` and ``ticker compare --plot`` draw (the comparisons' timelines are their own),
and writing a picture (SVG, PNG or the HTML report) by its file's suffix."""

from __future__ import annotations

from pathlib import Path

from .api import analysed, run
from .errors import Diagnostic, UsageError
from .plot import select
from .plot.timeline import MAX_ATOMS, Timeline, view
from .spec import EVALUATION, INPUT, PROGRAM, RunSpec, takes_spec
from .stages.output import open_output

__all__ = ["OUTPUTS", "run_timeline", "check_output", "write"]

#: what ``--out`` / ``--plot`` write, by suffix
OUTPUTS = ("svg", "png", "html")


def check_output(path: str, option: str = "--out") -> str:
    """The picture format of an output path (its suffix), or a UsageError."""
    fmt = Path(path).suffix.lstrip(".").lower()
    if fmt not in OUTPUTS:
        raise UsageError(
            Diagnostic(
                f"{option} '{path}': cannot tell the picture format from the suffix",
                notes=("write FILE.svg, FILE.png or FILE.html (a self-contained report)",),
            )
        )
    return fmt


@takes_spec(PROGRAM, INPUT, EVALUATION, purpose="plot", loads=True, exclude=("tuple_order",))
def run_timeline(
    program,
    stream,
    start: int | None = None,
    end: int | None = None,
    atoms: select.Selection | None = None,
    max_atoms: int | None = MAX_ATOMS,
    title: str = "",
    *,
    spec: RunSpec,
) -> Timeline:
    """Run ``program`` (source, path or analysis) over ``stream`` as ``spec`` says (``models``: all by
    default) and build its timeline over ``start`` .. ``end``, of the ``atoms`` selected (at most
    ``max_atoms`` rows); the title says what ran (``title``, default the program), the subtitle with
    which engine, semantics and answer streams, over which time points."""
    analysis = analysed(program, spec)
    select.check_selection(atoms, analysis.predicates)
    named = str(program) if isinstance(program, (str, Path)) and "\n" not in str(program) else "answer stream"
    return view(run(analysis, stream, spec=spec), title or named, start, end, atoms, max_atoms, _unit(analysis))


def _unit(analysis) -> str:
    ms = getattr(analysis, "clock_ms", None)
    if not ms:
        return "time point"
    return f"time point ({ms / 1000:g} s each)" if ms >= 1000 else f"time point ({ms} ms each)"


def write(tl: Timeline, path: str) -> None:
    """Write the timeline's picture to ``path``: SVG, PNG, or the HTML report, by its suffix."""
    from .plot import draw, html

    fmt = check_output(path)
    fig = draw.figure(tl)
    if fmt == "html":
        data = html.report(tl, draw.svg_text(fig)).encode("utf-8")
    else:
        import io

        buf = io.BytesIO()
        draw.save(fig, buf, fmt)
        data = buf.getvalue()
    write_bytes(path, data)


def write_bytes(path: str, data: bytes) -> None:
    """Write ``data`` to the file ``path`` (``-``: standard output), refused as every ``--out`` is."""
    out = open_output(path)
    try:
        out.stream.flush()
        out.stream.buffer.write(data)
    except OSError as err:
        raise UsageError(Diagnostic(f"cannot write to '{path}': {err.strerror or err}")) from None
    finally:
        out.close()
