"""The one switch for accelerators (``TICKER_ACCELERATORS=off``) and the canonical paths it leaves.

The README's test command runs the suite with accelerators on; the behaviour suite and the property
tests that compare engines run again here with them off, in a fresh process, so that the canonical
paths (clingo's public API, the ground-atom reader) pass the same tests alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ticker_py import accelerators

ROOT = Path(__file__).resolve().parent.parent

#: the suites that run again with accelerators off: behaviour, engine-equality properties, readers
OFF_SUITES = (
    "tests/test_behaviour.py",
    "tests/test_properties.py",
    "tests/test_incremental.py",
    "tests/test_native.py",
    "tests/test_semantics.py",
    "tests/test_factorize.py",
    "tests/test_reference.py",
    "tests/test_fuzz.py",
    "tests/test_accelerators.py::test_the_switch_follows_the_environment",
)

PATHS = """
import json
from ticker_py import accelerators
from ticker_py.engines import clingo_c
from ticker_py.syntax import constant_atoms, ground_atoms

split = []
real = constant_atoms.split_constants
ground_atoms.split_constants = lambda text: split.append(text) or real(text)
ground_atoms.AtomReader().line("p(a), p(b)")
print(json.dumps([accelerators.ENABLED, clingo_c.C_LAYER, split]))
"""


def _env(**changes) -> dict:
    """This environment without pytest's own variables (a fresh run), with ``changes``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.pop(accelerators.ENV, None)
    env.update(changes)
    return env


def test_the_switch_follows_the_environment():
    value = os.environ.get(accelerators.ENV, "on").strip().lower()
    assert accelerators.ENABLED == (value not in {"off", "0", "false", "no"})


@pytest.mark.parametrize("value, enabled", [(None, True), ("on", True), ("off", False), ("0", False), ("No", False)])
def test_off_takes_the_canonical_paths(value, enabled):
    """Accelerators off: a line of constant atoms goes to the ground-atom reader, not to the splitter of
    constant atoms, and the incremental engine reads clingo's models through the public API."""
    env = _env() if value is None else _env(**{accelerators.ENV: value})
    proc = subprocess.run([sys.executable, "-c", PATHS], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    on, c_layer, split = json.loads(proc.stdout)
    assert on == enabled and c_layer == enabled  # this clingo has the C layer (tests/test_hybrid_models.py)
    assert split == (["p(a), p(b)"] if enabled else [])


@pytest.mark.slow
def test_the_behaviour_and_property_suites_pass_with_accelerators_off():
    """The suites of OFF_SUITES in a fresh pytest process with ``TICKER_ACCELERATORS=off`` (slow
    tests as the outer run has them: a sample, or whole under ``TICKER_SLOW=full``)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", *OFF_SUITES],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=_env(**{accelerators.ENV: "off"}),
        timeout=3600,
    )
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout.splitlines()[-1] and "failed" not in proc.stdout.splitlines()[-1]
