"""``ticker run``: evaluate a program over a stream and write the results.

The options are the fields of the run specification (:class:`~ticker_py.spec.RunSpec`); the command
builds it and hands it to :func:`ticker_py.pipeline.write_run`.
"""

from __future__ import annotations

from pathlib import Path

from ..spec import EVALUATION, INPUT, LIVE, OUTPUT, SHARDS, section
from .common import HelpFormatter, add_program_args, add_spec_args, check_outputs_apart, note_stdin, spec_of
from .signals import Stopping

__all__ = ["register", "cmd_run"]


def register(sub) -> None:
    """Add ``run`` to the ``ticker`` subcommands."""
    run = sub.add_parser("run", help="evaluate a program over a stream", formatter_class=HelpFormatter)
    add_program_args(run)
    run.add_argument(
        "--stream",
        default="-",
        help="stream file (.stream/.txt/.jsonl/.csv/.parquet, also .gz/.bz2/.xz; .nt/.nq for RDF) or - for stdin",
    )
    add_spec_args(run, *(name for name in section(INPUT, EVALUATION, OUTPUT) if name != "tuple_order"))
    add_spec_args(run.add_argument_group("live streams (docs/live.md)"), *section(LIVE))
    add_spec_args(run.add_argument_group("sharded evaluation (see docs/spark.md)"), *section(SHARDS))
    run.set_defaults(func=cmd_run)


def cmd_run(args) -> int:
    """``ticker run``."""
    from ..pipeline import write_run

    spec = spec_of(args)
    check_outputs_apart(args, "out", "save_input")
    if not spec.input:
        note_stdin(args.stream)
    with Stopping() as stop:  # SIGINT, SIGTERM: what was read is evaluated and written, then 130, 143
        write_run(Path(args.program), args.stream, spec, stop)
    return 0
