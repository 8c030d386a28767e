"""Every Python that ``requires-python`` claims imports the package.

The suite itself runs on one interpreter (``.ci/run`` also runs the fast tests on the others in
venvs); here each other interpreter of a claimed version found on this machine (pyenv's, or
``python3.X`` on ``PATH``) imports every module of ticker_py whose third-party packages it has,
so that syntax, regular expressions or standard-library names newer than the oldest claimed
version fail here, whatever that interpreter has installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: imports each module; prints those that fail for another reason than a missing third-party package
IMPORT_ALL = """
import importlib, pkgutil, sys, traceback
import ticker_py
failed = []
for info in pkgutil.walk_packages(ticker_py.__path__, "ticker_py."):
    if info.name.endswith(".__main__"):  # runs the command line
        continue
    try:
        importlib.import_module(info.name)
    except ModuleNotFoundError as err:
        if (err.name or "").startswith("ticker_py"):
            failed.append(info.name + ": " + repr(err))
    except Exception as err:
        failed.append(info.name + ": " + "".join(traceback.format_exception_only(type(err), err)).strip())
print("\\n".join(failed))
"""


def claimed_minors() -> list:
    """The Python 3 minor versions from ``requires-python``'s floor (``>=3.X``) to 3.13."""
    text = (ROOT / "pyproject.toml").read_text()
    floor = int(re.search(r'requires-python\s*=\s*">=\s*3\.(\d+)"', text).group(1))
    return list(range(floor, 14))


def interpreter(minor: int) -> str | None:
    """An interpreter of Python 3.``minor`` on this machine: pyenv's, else ``python3.X`` on PATH."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    for path in sorted(pyenv.glob(f"3.{minor}.*/bin/python3.{minor}"), reverse=True):
        return str(path)
    found = shutil.which(f"python3.{minor}")
    return found if found and "shims" not in found else None


def test_requires_python_names_a_floor():
    assert claimed_minors()[0] >= 10


@pytest.mark.parametrize("minor", claimed_minors())
def test_the_package_imports_on_every_claimed_python(minor):
    if sys.version_info[:2] == (3, minor):
        pytest.skip("the running interpreter: the whole suite imports the package")
    python = interpreter(minor)
    if python is None:
        pytest.skip(f"no Python 3.{minor} on this machine")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run([python, "-c", IMPORT_ALL], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "", proc.stdout
