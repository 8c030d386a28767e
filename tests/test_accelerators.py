"""The one switch for accelerators (``TICKER_ACCELERATORS=off``), and each accelerator against its twin.

An accelerator is checked where it acts: random and hostile input given to the function that asks
the switch, once with accelerators on and once off, must give the same result (or the same error).
One test function per accelerator (listed in ``TWINS``), so that an accelerator and its check go
together; one cheap end-to-end check that the switch, read from the environment, routes every
accelerated path to its canonical twin.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import accelerators_set, scaled
from hypothesis import given, settings
from hypothesis import strategies as st

from ticker_py import accelerators
from ticker_py.syntax.ground_atoms import AtomReader, GroundSyntaxError

ROOT = Path(__file__).resolve().parent.parent

#: each module that asks the switch -> the test below that checks its accelerator against the twin
TWINS = {"ticker_py/syntax/ground_atoms.py": "test_the_constant_atom_splitter_equals_its_twin"}


def test_every_accelerator_is_checked_against_its_twin():
    importing = re.compile(r"^\s*(from [.\w]+ import .*\baccelerators\b|import [.\w]*\baccelerators\b)", re.MULTILINE)
    asking = {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "ticker_py").rglob("*.py")
        if importing.search(p.read_text(encoding="utf-8")) and p.name != "accelerators.py"
    }
    assert asking == set(TWINS)
    assert all(callable(globals().get(name)) for name in TWINS.values())


def test_the_switch_follows_the_environment():
    value = os.environ.get(accelerators.ENV, "on").strip().lower()
    assert accelerators.ENABLED == (value not in {"off", "0", "false", "no"})


PATHS = """
import json
from ticker_py import accelerators
from ticker_py.syntax import ground_atoms

split = []
real = ground_atoms.split_constants
ground_atoms.split_constants = lambda text: split.append(text) or real(text)
ground_atoms.AtomReader().line("p(a,b), p(c,d)")
print(json.dumps([accelerators.ENABLED, split]))
"""


def _env(**changes) -> dict:
    """This environment without pytest's own variables (a fresh run), with ``changes``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.pop(accelerators.ENV, None)
    env.update(changes)
    return env


@pytest.mark.parametrize("value, enabled", [(None, True), ("on", True), ("off", False), ("0", False), ("No", False)])
def test_off_takes_the_canonical_paths(value, enabled):
    """Accelerators off: a line of constant atoms goes to the ground-atom reader alone."""
    env = _env() if value is None else _env(**{accelerators.ENV: value})
    proc = subprocess.run([sys.executable, "-c", PATHS], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    on, split = json.loads(proc.stdout)
    assert on == enabled
    assert split == (["p(a,b), p(c,d)"] if enabled else [])


# ---------------------------------------------------------------- the constant-atom splitter (syntax/constant_atoms.py)

#: names and arguments, mostly those of constant atoms, sometimes others (keywords, numbers, strings,
#: variables, functions, nothing)
NAMES = st.sampled_from(["p", "q", "r_1", "s'", "zZ9"] * 8 + ["P", "not", '"s"', "1", "f(a)"])
ARGUMENTS = st.sampled_from(
    ["a", "b0", "zZ9", "e'", "c"] * 10 + ["not", "at", "X", "_x", "1", "-2", '"x,y"', "", "f(g)", " a"]
)


@st.composite
def constant_lines(draw) -> str:
    """Atoms of one arity, mostly with constant arguments, mostly ``", "`` between them."""
    arity = draw(st.integers(0, 3))
    atoms = draw(st.lists(st.tuples(NAMES, st.lists(ARGUMENTS, min_size=arity, max_size=arity)), max_size=6))
    sep = draw(st.sampled_from([", ", ", ", ", ", ",", ";", " , ", ",  "]))
    return sep.join(f"{name}({','.join(args)})" if args else name for name, args in atoms)


#: lines of atoms the splitter takes (constant arguments, ", " between) and lines near them
ATOM_LINES = st.one_of(
    constant_lines(),
    st.lists(st.sampled_from(["p", "(", ")", ",", ", ", "a", "b", " ", "é", "\x00", '"', "X", ";"]), max_size=30).map(
        "".join
    ),
)


def _read(lines: list, enabled: bool) -> list:
    """What one reader gives for each line, and for the line's atom texts as one list (JSON Lines,
    table cells), in turn (its caches and the line before carry over); errors in place."""
    out = []
    with accelerators_set(enabled):
        reader = AtomReader(limit=4)
        for line in lines:
            for read in (reader.line, lambda text: reader.each([a for a in text.split(", ") if a])):
                try:
                    atoms = read(line)
                except GroundSyntaxError as e:
                    out.append(("error", e.message, e.column))
                    continue
                out.append(atoms)
                if reader.shape is not None:  # what the splitter learnt of the atoms is true
                    pairs, distinct = reader.shape
                    assert pairs == {(a[0], len(a)) for a in atoms}
                    assert not distinct or len(set(atoms)) == len(atoms)
    return out


@pytest.mark.slow
@settings(max_examples=scaled(5000, 300), deadline=None)
@given(st.lists(ATOM_LINES, min_size=1, max_size=6))
def test_the_constant_atom_splitter_equals_its_twin(lines):
    """The ground-atom reader gives the same atoms, or the same located error, line after line,
    with the splitter (accelerators on) and without it (off)."""
    assert _read(lines, True) == _read(lines, False)
