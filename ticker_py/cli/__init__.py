"""The ``ticker`` command line (docs/cli.md): one module per command, one error boundary (:func:`main`).

Exit status: 0 done; 2 bad program, stream or arguments (a :class:`~ticker_py.errors.TickerError`,
reported as a diagnostic on stderr); 1 an internal error (a bug); 3 from ``ticker compare``
when the runs differ, and from ``ticker distinguish`` when it finds a stream on which they do;
130 interrupted (Ctrl-C, SIGINT), 143 terminated (SIGTERM): what was accepted is evaluated and
written first. A closed pipe never changes the status of a user error: output cut short by a
reader that left (``| head``) ends the command quietly with status 0, and a closed stderr only
loses the messages (:class:`_Unbroken`).
Library code below this package takes typed values, never the parsed arguments.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from .. import __version__
from ..errors import TickerError, TickerWarning
from .common import HelpFormatter
from .parser import Parser

__all__ = ["main", "build_parser"]

VERBOSE = "log clingo's messages to stderr"

#: the command modules, in the order ``ticker --help`` lists them; each has ``register(subparsers)``
COMMANDS = ("run", "check", "encode", "compare", "distinguish", "explain", "plot", "enumerate", "gen", "bench")


def _commands(argv) -> tuple:
    """The command modules to register: only the one named in ``argv`` (a fast start-up), or all."""
    argv = sys.argv[1:] if argv is None else argv
    words = [a for a in argv if not a.startswith("-")]
    if not words and "--version" in argv:
        return ()
    chosen = (words[0],) if words and words[0] in COMMANDS else COMMANDS
    return tuple(importlib.import_module(f"{__name__}.{name}") for name in chosen)


def build_parser(argv: list | None = None, every: bool = True) -> argparse.ArgumentParser:
    """The argument parser with every subcommand (with ``every=False``: only the one ``argv`` names)."""
    parser = Parser(prog="ticker", description="Stream reasoning with LARS programs.", formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"ticker_py {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help=VERBOSE)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    modules = _commands(argv) if not every else _commands([])
    for command in modules:
        command.register(sub)
    for command in sub.choices.values():  # the global options after the command too: ticker run -v
        command.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help=VERBOSE)
    return parser


def _terminate_as_interrupt() -> None:
    """SIGTERM stops every command as Ctrl-C does (``ticker run`` handles both itself: cli.signals)."""
    import signal

    from .signals import Interrupted

    def terminated(signum, frame):
        raise Interrupted(signum)

    signal.signal(signal.SIGTERM, terminated)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Print a :class:`~ticker_py.errors.TickerWarning` as its diagnostic, any other warning as Python does."""
    import warnings

    text = (
        f"{message}\n"
        if isinstance(message, TickerWarning)
        else warnings.formatwarning(message, category, filename, lineno, line)
    )
    (sys.stderr if file is None else file).write(text)


class _Unbroken:
    """Standard error on which a message that cannot be written (a closed pipe) is lost, not an error."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except (OSError, ValueError):
            _to_devnull(self.stream)
            return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except (OSError, ValueError):
            _to_devnull(self.stream)

    def __getattr__(self, name):
        return getattr(self.stream, name)


def _to_devnull(stream) -> None:
    """Point the file descriptor of ``stream`` at /dev/null (a reader closed its pipe): what is still
    buffered then goes nowhere at exit instead of failing again (status 120)."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):  # not a file (a test's capture), or closed
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def _flush_stdout() -> None:
    """Flush standard output before a message on stderr; a closed pipe there is no new error."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        _to_devnull(sys.stdout)


def main(argv=None) -> int:
    """Entry point of the ``ticker`` command: the one place where errors become exit statuses."""
    stderr = sys.stderr
    sys.stderr = _Unbroken(stderr)
    try:
        return _main(argv)
    finally:
        sys.stderr = stderr


def _main(argv) -> int:
    parser = build_parser(argv, every=False)
    try:
        args = parser.parse_args(argv)
    except TickerError as err:  # a bad command line: one line, not the whole usage
        print(err, file=sys.stderr)
        return 2
    args.argv = list(sys.argv[1:] if argv is None else argv)  # a picture's title names what ran
    if argv is None:  # the ticker process itself, not a caller's
        from ..process import tune_collector

        tune_collector()
        _terminate_as_interrupt()
    if args.verbose or "logging" in sys.modules:  # a plain run never logs a warning: spare the import
        import logging

        level = logging.DEBUG if args.verbose else logging.WARNING
        logging.basicConfig(level=level, format="%(name)s: %(message)s", stream=sys.stderr)
    import warnings

    with warnings.catch_warnings():  # a warning of ticker_py is printed as its diagnostic
        warnings.showwarning = _show_warning
        warn = getattr(args, "warn", "all")
        if warn not in ("all", "none"):
            print(f"ticker {args.command}: error: unknown -W/--warn value '{warn}' (use all or none)", file=sys.stderr)
            return 2
        if warn == "none":  # -W none: as clingo's, no warning at all
            warnings.simplefilter("ignore", TickerWarning)
        status = _dispatch(args)
    if argv is None:  # the engine's state is freed by the operating system, not object by object
        import gc

        gc.freeze()
    return status


def _dispatch(args) -> int:
    """Run the command of ``args``; errors become exit statuses."""
    try:
        return args.func(args)
    except TickerError as err:
        _flush_stdout()
        print(err, file=sys.stderr)
        return 2
    except KeyboardInterrupt as err:  # Ctrl-C, or SIGINT/SIGTERM during a run (cli.signals)
        _flush_stdout()
        return 128 + getattr(err, "signum", 2)
    except BrokenPipeError:  # the reader of the output left (| head): what it wanted was written
        _to_devnull(sys.stdout)
        return 0
    except Exception:  # a bug: say so, with the traceback for the report
        import traceback

        _flush_stdout()
        print("ticker: internal error (a bug in ticker_py, please report it):", file=sys.stderr)
        traceback.print_exc()
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
