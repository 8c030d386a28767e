"""``ticker run``: evaluate a program over a stream and write the results."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, replace

from ..consequences import MODES
from ..engines import ENGINE_NAMES
from ..errors import Diagnostic, UsageError
from ..process import steady_heap_from_second
from ..rdf import RDF_FORMATS
from ..semantics import DEFAULT, Semantics, resolve
from ..streams.drive import MAX_GAP, Every, check_max_gap
from .common import (
    HelpFormatter,
    add_program_args,
    add_semantics_args,
    check_choice,
    check_outputs_apart,
    check_until,
    choices_metavar,
    load,
    note_stdin,
    semantics_knobs,
)
from .live import add_live_options, live_options
from .shard import add_shard_options, run_sharded_command, shard_options
from .signals import Stopping

__all__ = ["RunOptions", "register", "cmd_run", "FORMATS"]

FORMATS = ("jsonl", "text", "csv", "none", "ntriples", "nquads")
RDF_OUTPUT = ("ntriples", "nquads")
#: the engines whose answer stream ``--inertia`` steers
INERTIA_ENGINES = ("incremental", "incremental-pure")
STREAM_FORMATS = ("auto", "text", "jsonl", "csv") + RDF_FORMATS


@dataclass(frozen=True)
class RunOptions:
    """How ``ticker run`` evaluates and prints (the parsed arguments, checked)."""

    stream: str | None = "-"
    stream_format: str = "auto"
    engine: str = "auto"
    models: int = 1
    every: Every = Every.TIME
    format: str = "jsonl"
    changes: bool = False
    show_at: bool = False
    show: str = "derived"
    inertia: bool = False
    consequences: str | None = None
    until: int | None = None
    out: str | None = None
    max_gap: int | None = MAX_GAP
    factorize: bool = False
    semantics: Semantics = DEFAULT


def register(sub) -> None:
    """Add ``run`` to the ``ticker`` subcommands."""
    run = sub.add_parser("run", help="evaluate a program over a stream", formatter_class=HelpFormatter)
    add_program_args(run)
    run.add_argument(
        "--stream",
        default="-",
        help="stream file (.stream/.txt/.jsonl/.csv/.parquet, also .gz/.bz2/.xz; .nt/.nq for RDF) or - for stdin",
    )
    run.add_argument(
        "--stream-format",
        default="auto",
        metavar=choices_metavar(STREAM_FORMATS),
        help="format of stdin and of stream files with another suffix: auto (by the suffix; "
        "stdin is text), text, jsonl, csv; nt, nq, rdf-csv, rdf-parquet: RDF streams",
    )
    run.add_argument(
        "--rdf-output",
        default="triple",
        metavar="NAME",
        help="with --format ntriples/nquads: the ternary predicate whose atoms are the triples written",
    )
    run.add_argument(
        "--engine",
        default="auto",
        metavar=choices_metavar(("auto",) + ENGINE_NAMES),
        help="the engine (auto: native if it can run the program, else incremental)",
    )
    run.add_argument(
        "--models",
        type=int,
        default=None,
        help="answer streams per tick (0 = all; 0 by default with --factorize) (default: 1)",
    )
    run.add_argument(
        "--factorize",
        action="store_true",
        help="all answer streams per tick as a product: a common part times independent choices",
    )
    run.add_argument(
        "--every",
        default="time",
        metavar=choices_metavar(tuple(e.value for e in Every)),
        help="time: once per time point; signal: after every atom",
    )
    run.add_argument("--format", default="jsonl", metavar=choices_metavar(FORMATS), help="output format")
    run.add_argument("--changes", action="store_true", help="print what changed since the previous tick")
    run.add_argument("--show-at", action="store_true", help="also print atoms pinned to other time points")
    run.add_argument(
        "--show",
        default="derived",
        metavar=choices_metavar(("derived", "all")),
        help="derived, or all (also input and background)",
    )
    run.add_argument("--inertia", action="store_true", help="prefer the previous tick's answer stream")
    run.add_argument(
        "--consequences",
        choices=MODES,
        help="print per tick the number of answer streams and their brave/cautious consequences"
        " (enumerates all answer streams)",
    )
    run.add_argument("--until", type=int, help="evaluate time points up to T")
    run.add_argument(
        "--max-gap",
        type=int,
        default=MAX_GAP,
        metavar="N",
        help="refuse a record more than N time points after the previous one (each time point "
        "in between is evaluated and written); 0 = no limit",
    )
    run.add_argument(
        "--out",
        help="write results to FILE (default stdout; - is stdout); with --spark: a directory of Parquet answers",
    )
    run.add_argument(
        "--strict",
        action="store_true",
        help="an order comparison of a number with a string or literal that is no number is an error "
        "(default: a warning, once per comparison and kind of term)",
    )
    add_semantics_args(run)
    add_live_options(run)
    add_shard_options(run)
    run.set_defaults(func=cmd_run)


def run_options(args) -> RunOptions:
    """The checked run options of parsed arguments (the program is loaded after these checks)."""
    check_choice(args.format, FORMATS, "format")
    check_choice(args.stream_format, STREAM_FORMATS, "stream format")
    check_choice(args.show, ("derived", "all"), "--show value")
    every = Every.parse(args.every)
    if args.models is not None and args.models < 0:
        raise UsageError(Diagnostic(f"--models must be >= 0, not {args.models}"))
    models = args.models if args.models is not None else 0 if args.factorize else 1
    semantics = resolve(args.semantics, **semantics_knobs(args))
    if args.factorize and semantics.changed:
        raise UsageError(
            Diagnostic(
                "--factorize runs the default semantics", notes=(f"drop --factorize or the knobs of '{semantics}'",)
            )
        )
    return RunOptions(
        stream=args.stream,
        stream_format=args.stream_format,
        engine=args.engine,
        models=models,
        every=every,
        format=args.format,
        changes=args.changes,
        show_at=args.show_at,
        show=args.show,
        inertia=args.inertia,
        consequences=args.consequences,
        until=check_until(args.until),
        out=args.out,
        max_gap=check_max_gap(args.max_gap),
        factorize=args.factorize,
        semantics=semantics,
    )


def cmd_run(args) -> int:
    """``ticker run``."""
    from ..api import Reasoner, records_from
    from ..streams.output import open_output

    o = run_options(args)
    check_outputs_apart(args, "out", "save_input")
    live = live_options(args)  # None: no live input or output (nothing of ticker_py.live is imported)
    shards = shard_options(args)
    analysis = load(args)
    if o.changes and o.models != 1 and not o.factorize:
        raise UsageError(Diagnostic("--changes needs a single answer stream", notes=("use --models 1",)))
    if o.consequences:
        if o.changes or o.format != "jsonl":
            raise UsageError(
                Diagnostic("--consequences prints JSON Lines of its own", notes=("drop --changes and --format",))
            )
        o = replace(o, models=0)

    rdf = _rdf_mapping(args, analysis, o)
    rdf_predicate = args.rdf_output
    if o.format in RDF_OUTPUT or rdf_predicate != "triple":  # checked against the program (rdf.writer)
        from ..rdf.writer import rdf_output

        rdf_predicate = rdf_output(rdf_predicate, o.format, analysis, getattr(args, "rdf_mapping", "triple"), o.show)

    def output():
        out = None
        if live is not None:
            from ..live.options import live_output

            out = live_output(live)
        out = out or open_output(o.out)
        if o.format in RDF_OUTPUT:
            from ..rdf.writer import RdfWriter

            return out, RdfWriter(out, o.format, rdf, rdf_predicate)
        if o.factorize and o.models == 0:
            from ..streams.factor_writers import make_factor_writer as make
        else:
            from ..streams.writers import make_writer as make
        return out, make(o.format, out, show_at=o.show_at, changes=o.changes)

    if shards is not None:
        from ..engines import check_engine

        if o.semantics.changed:
            raise UsageError(
                Diagnostic(
                    "sharded runs use the default semantics",
                    notes=(f"drop --shards/--spark or the knobs of '{o.semantics}'",),
                )
            )

        if args.strict:
            raise UsageError(Diagnostic("--strict cannot be combined with --spark or --shards"))
        check_engine(o.engine, analysis)  # refused here, not in the shards
        if live is not None:
            raise UsageError(Diagnostic("live input or output cannot be sharded", notes=("drop --shards/--spark",)))
        if shards.out is not None:  # the executors write the answers
            return run_sharded_command(analysis, o, shards, None)
        out, writer = output()
        try:
            return run_sharded_command(analysis, o, shards, writer)
        finally:
            out.close()
    reasoner = Reasoner(
        analysis,
        engine=o.engine,
        models=o.models,
        show=o.show,
        inertia=o.inertia,
        changes_only=_changes_only(o),
        factorize=o.factorize,
        semantics=o.semantics,
        history=False,
        printed_order=False,  # the writers print in that order
        strict=args.strict,
    )
    if o.inertia and reasoner.engine_name not in INERTIA_ENGINES:
        print(
            f"note: --inertia has no effect with the {reasoner.engine_name} engine (only the incremental "
            "engines prefer the previous answer stream)",
            file=sys.stderr,
        )
    if live is None or not live.input:
        note_stdin(o.stream)
    records = None
    if live is not None:
        from ..live.options import live_records

        records = live_records(live, analysis, lambda: records_from(o.stream, rdf, o.stream_format))
    if records is None:
        records = records_from(o.stream, rdf, o.stream_format)
    out, writer = output()
    start = time.perf_counter()
    points = 0
    warn_after = None  # a live stream may not end: its warnings come after its first time points
    if live is not None and (live.input or live.wall_clock):
        from ..analysis.unused import LIVE_WARN_AFTER as warn_after
    with Stopping() as stop:  # SIGINT, SIGTERM: what was read is evaluated and written, then 130, 143
        records = stop.records(steady_heap_from_second(records))
        results = stop.results(
            reasoner.feed(records, until=o.until, every=o.every, max_gap=o.max_gap, warn_after=warn_after)
        )
        try:
            if o.consequences:
                from ..consequences import consequences

                for cons in consequences(results, o.consequences, show_at=o.show_at):
                    points += 1
                    out.write(cons.to_json(o.consequences) + "\n")
                    out.flush()
                return 0
            for result in results:
                points += 1
                writer.write(result)
        finally:
            try:
                writer.close(
                    {"time_points": points, "atoms": reasoner.atoms_in, "seconds": time.perf_counter() - start}
                )
            finally:  # also when the writer's last flush fails (a full device): the file is closed here
                out.close()
    return 0


def _changes_only(o: RunOptions) -> bool:
    """Whether the engine sends only changes: for --changes and --format none, and for the whole-model
    formats of a single answer stream, whose writers keep it up to date from the changes (the
    cheap path: no copy of the whole answer stream at each tick)."""
    whole = o.format in ("jsonl", "text", "csv") and o.models == 1 and not o.show_at and not o.consequences
    return o.changes or o.format == "none" or (whole and not o.factorize)


def _rdf_mapping(args, analysis, o: RunOptions):
    """The RDF mapping of ``--rdf-mapping`` (with the program's prefixes), or None if the run
    reads and writes no RDF; refuses RDF output with several answer streams or --changes."""
    if o.format in RDF_OUTPUT and (o.models != 1 or o.changes):
        raise UsageError(
            Diagnostic(f"--format {o.format} writes a single answer stream", notes=("use --models 1 and no --changes",))
        )
    kind = getattr(args, "rdf_mapping", "triple")
    if kind == "triple" and o.format not in RDF_OUTPUT and o.stream_format not in RDF_FORMATS:
        return None
    from ..rdf.mapping import RdfMapping

    return RdfMapping(kind, analysis.program.prefixes)
