"""``ticker distinguish``: a smallest stream on which two semantics or two engines part; the atlas.

Exit 3 when a stream is found, 0 when none is found (said, with the number of streams tried), 2 on
errors. The search is :mod:`ticker_py.distinguishing`'s.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ..errors import Diagnostic, UsageError
from .common import HelpFormatter, add_program_args, check_outputs_apart, load
from .compare import EXIT_DIFFER

__all__ = ["register", "cmd_distinguish"]


def register(sub) -> None:
    """Add ``distinguish`` to the ``ticker`` subcommands."""
    p = sub.add_parser(
        "distinguish",
        help="find a smallest stream on which two semantics or engines differ; exit 3 when found",
        formatter_class=HelpFormatter,
        description="Search random streams over the program's stream predicates and constants (guided by its "
        "windows) for one on which two runs give different answer streams, and shrink it to a locally smallest "
        "one. With --atlas: every pair of the built-in profiles over the shipped small programs.",
    )
    add_program_args(p, optional=True)
    p.add_argument("--semantics", help="two semantics (default,lars; profile+knob=value), or one for both engines")
    p.add_argument("--engines", help="two engines (clingo,native), or one for both semantics (default: auto)")
    p.add_argument("--stream", help="start from this stream, on which the two differ, and only shrink it")
    p.add_argument("--budget", type=float, default=10.0, metavar="SECONDS", help="seconds of search")
    p.add_argument("--seed", type=int, default=0, help="the order of the search: a seed finds the same stream")
    p.add_argument("--max-tp", type=int, metavar="N", help="time points of a drawn stream at most")
    p.add_argument(
        "--max-streams",
        type=int,
        metavar="N",
        help="streams tried at most (with a large budget: a reproducible search)",
    )
    p.add_argument("--out", metavar="FILE", help="write the stream found (text format); with --atlas the table")
    p.add_argument(
        "--atlas",
        action="store_true",
        help="every pair of the built-in profiles over the shipped programs: a markdown table (to --out FILE.md: "
        "a new file, or the section between <!-- atlas --> and <!-- /atlas --> of an existing one)",
    )
    p.set_defaults(func=cmd_distinguish)


def cmd_distinguish(args) -> int:
    """``ticker distinguish``."""
    from .. import distinguishing as d
    from ..pictures import write_bytes

    if args.atlas:
        return _atlas(args)
    if args.program is None:
        raise UsageError(Diagnostic("distinguish needs a PROGRAM (or --atlas)"))
    check_outputs_apart(args, "out")
    d.check_options(args.budget, args.seed, args.max_tp, args.max_streams, lambda k: "--" + k.replace("_", "-"))
    found = d.search(
        load(args), args.semantics, args.engines, args.stream, args.budget, args.seed, args.max_tp, args.max_streams
    )
    a, b = found.runs
    if found.witness is None:
        if args.stream is not None:
            print(f"{a} and {b} agree on {args.stream}: nothing to shrink")
        else:
            bound = f"budget {args.budget:g} s" + (
                f", at most {args.max_streams}" if args.max_streams is not None else ""
            )
            print(
                f"no stream found on which {a} and {b} differ: {_streams(found.streams)} tried (seed {args.seed}, {bound})"
            )
        return 0
    print(d.format_witness(found.witness))
    print(
        "shrunk from --stream"
        if args.stream is not None
        else f"found among {_streams(found.streams)} (seed {args.seed})"
    )
    if args.out is not None:
        write_bytes(args.out, d.stream_text(found.witness.stream).encode())
    return EXIT_DIFFER


def _atlas(args) -> int:
    """Every pair of the built-in profiles over the shipped programs: the table, to stdout or ``--out``."""
    from .. import distinguishing as d
    from ..pictures import write_bytes

    if args.program is not None or args.semantics or args.engines or args.stream:
        raise UsageError(
            Diagnostic(
                "--atlas runs the shipped programs", notes=("drop PROGRAM, --semantics, --engines and --stream",)
            )
        )
    d.check_options(args.budget, args.seed, None, None, lambda k: "--" + k.replace("_", "-"))
    start = time.monotonic()
    rows = d.atlas(seed=args.seed)
    table = d.atlas_markdown(rows, seed=args.seed)
    pairs = len({(a, b) for _, a, b, _ in rows})
    print(
        f"atlas: {pairs} pairs of profiles x {len(d.ATLAS)} programs in {time.monotonic() - start:.0f} s",
        file=sys.stderr,
    )
    if args.out is None:
        print(table, end="")
        return 0
    path = Path(args.out)
    page = path.read_text(encoding="utf-8") if args.out != "-" and path.exists() else None
    write_bytes(args.out, d.atlas_section(page, table).encode("utf-8"))
    return 0


def _streams(n: int) -> str:
    return f"{n} stream{'s' * (n != 1)}"
