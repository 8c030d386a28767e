"""What the commands share: the help formatter, the program arguments, choice checks."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import Diagnostic, UsageError
from .parser import MERGED

__all__ = [
    "HelpFormatter",
    "add_program_args",
    "add_spec_args",
    "spec_of",
    "load",
    "check_choice",
    "choices_metavar",
    "name_list",
    "add_semantics_args",
    "semantics_knobs",
    "check_until",
    "check_outputs_apart",
    "add_picture_args",
    "picture_range",
    "note_stdin",
    "command_title",
]


class HelpFormatter(argparse.HelpFormatter):
    """Appends ``(default: X)`` to the help of an option that has a default worth showing."""

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if (
            "%(default)" not in text
            and action.option_strings
            and default is not argparse.SUPPRESS
            and not (default is None or isinstance(default, bool))
        ):
            text += " (default: %(default)s)"
        return text


def choices_metavar(choices) -> str:
    """``{a,b,c}``: how ``--help`` shows the values an option takes (checked by the command,
    so that a bad value is a located diagnostic with status 2, as every user error)."""
    return "{" + ",".join(choices) + "}"


def add_spec_args(p, *names: str, purpose: str = "run") -> None:
    """The options of the run specification's fields ``names`` (:class:`~ticker_py.spec.RunSpec`):
    their flags, help and defaults come from the spec (``purpose``: whose defaults, see
    :data:`~ticker_py.spec.PURPOSES`); ``semantics`` brings the knobs. :func:`spec_of` reads them back."""
    from ..spec import FIELDS, OPTIONS, default

    names = tuple(name for name in names if not OPTIONS[name][2].get("api"))
    p.set_defaults(spec_fields=(p.get_default("spec_fields") or ()) + names, spec_purpose=purpose)
    for name in names:
        if name == "semantics":
            add_semantics_args(p)
            continue
        _, text, cli = OPTIONS[name]
        flags = ([cli["short"]] if "short" in cli else []) + ["--" + name.replace("_", "-")]
        if FIELDS[name].default is False:
            p.add_argument(*flags, dest=name, action="store_true", help=text)
        elif FIELDS[name].default == ():
            p.add_argument(*flags, dest=name, action=MERGED, metavar=cli.get("metavar"), help=text + " (repeatable)")
        else:
            choices = cli.get("choices")
            metavar = cli.get("metavar") or (
                choices_metavar(getattr(c, "value", c) for c in choices) if choices else None
            )
            if name == "models" and default(name, purpose) is None:  # the spec's models_per_tick
                text += "; all by default with --factorize or --consequences (default: 1)"
            p.add_argument(
                *flags, dest=name, default=default(name, purpose), type=cli.get("type"), metavar=metavar, help=text
            )


def add_program_args(p: argparse.ArgumentParser, optional: bool = False) -> None:
    """PROGRAM (``optional``: may be left out), how it is loaded (the spec's program fields) and ``-W``."""
    from ..spec import PROGRAM, section

    p.add_argument("program", nargs="?" if optional else None, help="the LARS program (.lars)")
    add_spec_args(p, *section(PROGRAM))
    p.add_argument(
        "-W",
        "--warn",
        default="all",
        metavar=choices_metavar(("all", "none")),
        help="all: print warnings (file:line:col: warning: ...) on stderr; none: print none",
    )


def spec_of(args):
    """The :class:`~ticker_py.spec.RunSpec` of the spec options the command's parser has (see
    :func:`add_spec_args`), checked: a bad value is refused naming its option."""
    from ..spec import KNOBS, RunSpec

    values = {name: getattr(args, name) for name in args.spec_fields if name != "semantics"}
    if "const" in values:
        values["const"] = consts(values["const"])
    if "semantics" in args.spec_fields:
        values["semantics"] = args.semantics
        values.update({k: getattr(args, k) for k in KNOBS if getattr(args, k, None) is not None})
    return RunSpec.of(purpose=args.spec_purpose, cli=True, **values)


def load(args, spec=None):
    """The analysed program the arguments name, loaded as ``spec`` (default: the arguments' spec)
    says (see :func:`ticker_py.api.load_program`)."""
    from ..api import load_program

    return load_program(Path(args.program), spec=spec or spec_of(args))


def consts(values) -> dict | None:
    """The constants of ``-c NAME=VALUE`` options: name -> value text (a later one wins)."""
    if not values:
        return None
    out = {}
    for text in values:
        name, eq, value = text.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise UsageError(Diagnostic(f"-c {text}: write -c NAME=VALUE", notes=("e.g. -c n=20",)))
        out[name.strip()] = value.strip()
    return out


def check_choice(value: str, choices, what: str) -> None:
    """Raise UsageError unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise UsageError(Diagnostic(f"unknown {what} '{value}'", notes=(f"use one of: {', '.join(choices)}",)))


def check_until(until, option: str = "--until"):
    """``--until T`` (or the time point of ``option``) checked: None or a time point (>= 0)."""
    if until is not None and until < 0:
        raise UsageError(Diagnostic(f"{option} {until} is negative", notes=("time points start at 0",)))
    return until


def check_outputs_apart(args, *outputs: str) -> None:
    """Refuse an output option (``"out"``, ``"save_input"``) that names the same regular file as
    an input (the program, ``--background``, ``--background-rdf``, ``--stream``): opening it for
    writing would empty the input before it is read (or destroy the program)."""
    import os
    import stat

    inputs = [
        (what, path)
        for name, what in (
            ("program", "program"),
            ("background", "--background"),
            ("background_rdf", "--background-rdf"),
            ("stream", "--stream"),
        )
        for path in _paths(getattr(args, name, None))
    ]
    for out_name in outputs:
        out = getattr(args, out_name, None)
        if out in (None, "-"):
            continue
        try:
            out_stat = os.stat(out)
        except OSError:
            continue  # not there yet: no input can be it
        if not stat.S_ISREG(out_stat.st_mode):
            continue
        for what, path in inputs:
            if path in (None, "-"):
                continue
            try:
                same = os.path.samestat(out_stat, os.stat(path))
            except OSError:
                continue
            if same:
                option = "--" + out_name.replace("_", "-")
                raise UsageError(
                    Diagnostic(
                        f"{option} '{out}' is the {what} file: writing it would destroy the input",
                        notes=("write to another file",),
                    )
                )


def note_stdin(stream) -> None:
    """Say on stderr that the stream is read from standard input when that is a terminal: a
    command run without ``--stream`` would otherwise wait there without a word."""
    import sys

    if stream in (None, "-") and sys.stdin is not None and sys.stdin.isatty():
        print(
            "ticker: reading the stream from standard input (lines such as '0: p(1)'; end with Ctrl-D; "
            "--stream FILE reads a file)",
            file=sys.stderr,
        )


def _paths(value) -> list:
    """The paths of an option: none, one, or those of a repeatable option."""
    return [] if value is None else list(value) if isinstance(value, list) else [value]


def name_list(text: str, known, what: str = "engine") -> tuple:
    """``"a, b"`` as ``("a", "b")``; every name must be in ``known``, at least one."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise UsageError(Diagnostic(f"--{what}s needs at least one {what}"))
    for i, n in enumerate(names):
        if n not in known:
            raise UsageError(Diagnostic(f"unknown {what} '{n}'", notes=(f"{what}s: {', '.join(known)}",)))
        if n in names[:i]:  # one run per name: the second would be dropped
            raise UsageError(Diagnostic(f"{what} '{n}' given twice in --{what}s"))
    return names


def add_semantics_args(p: argparse.ArgumentParser, several: bool = False) -> None:
    """``--semantics`` (a profile; with ``several`` a comma list) and one option per knob."""
    from ..semantics import KNOBS, PROFILES

    what = "comma-separated profiles to compare (profile+knob=value for a variant)" if several else "a profile"
    p.add_argument(
        "--semantics",
        default=None,
        metavar=choices_metavar(PROFILES),
        help=f"{what}: presets of the knobs below (docs/semantics.md); default: default",
    )
    for name, values in KNOBS.items():
        first = list(values)[0].value
        p.add_argument(
            "--" + name.replace("_", "-"),
            dest=name,
            default=None,
            metavar=choices_metavar(v.value for v in values),
            help=f"override the profile's {name.replace('_', ' ')} (default profile: {first})",
        )


def semantics_knobs(args) -> dict:
    """The knob options given on the command line (``{knob: value}``, unset ones left out)."""
    from ..semantics import KNOBS

    return {k: getattr(args, k) for k in KNOBS if getattr(args, k, None) is not None}


def add_picture_args(p) -> None:
    """``--from``, ``--atoms`` and ``--max-atoms``: what a picture shows (plot and compare --plot)."""
    p.add_argument(
        "--from", dest="start", type=int, metavar="T", help="show time points from T on (default: the first)"
    )
    p.add_argument(
        "--atoms",
        metavar="PATTERN",
        help="only these atoms: comma-separated name/arity, name, or atoms with _ for any term (alarm/0,q(a,_))",
    )
    p.add_argument("--max-atoms", type=int, default=60, metavar="N", help="atoms drawn before '... N more' (0 = all)")


def picture_range(args) -> tuple:
    """``(start, selection, max_atoms)`` of the picture options, checked (before the run: the
    checks of every picture, :func:`ticker_py.plot.timeline.span`)."""
    from ..plot.select import select
    from ..plot.timeline import check_max_atoms, span

    start = check_until(args.start, "--from")
    span((), start, args.until, ("--from", "--until"))
    return start, select(args.atoms), check_max_atoms(args.max_atoms, "--max-atoms")


#: options that say only where and how a command writes, not what ran (with the number of values)
_NOT_SHAPING = {"--plot": 1, "--out": 1, "--format": 1, "--max-diffs": 1, "-v": 0, "--verbose": 0, "-W": 1, "--warn": 1}


def command_title(args) -> str:
    """The command as it was given, without the options that say only where and how it writes
    (``--out``, ``--plot``, ``--format``, ...): a picture's title, naming every option that shaped
    the run."""
    import shlex

    argv = getattr(args, "argv", None)
    if argv is None:  # called without the command line (a test's namespace)
        return f"ticker {args.command} {args.program}" + (f" --stream {args.stream}" if args.stream else "")
    kept, skip = [], 0
    for word in argv:
        if skip:
            skip -= 1
            continue
        name = word.split("=", 1)[0]
        if name in _NOT_SHAPING:
            skip = 0 if "=" in word else _NOT_SHAPING[name]
            continue
        kept.append(word)
    return "ticker " + shlex.join(kept)
