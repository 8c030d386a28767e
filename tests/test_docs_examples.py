"""Every example in README.md and docs/*.md runs as shown.

Convention for fenced blocks in the docs (this test enforces it; one test per block, named
``FILE:LINE``):

- ```` ```console ````: commands prefixed ``$ ``, each followed by its expected output (stdout and
  stderr together, compared exactly after trailing whitespace is stripped from each line). Every
  command runs under ``bash`` in a fresh temporary directory seeded with the files of
  ``docs/examples/``, with ``ticker`` resolved as ``python -m ticker_py.cli`` of this checkout; the
  commands of one block run in order in the same directory (so a block may generate a file and then
  read it). Examples therefore name the shipped files by their bare names (``alarm.lars``).
- ```` ```python ````: executed; the python blocks of one doc run in order in one namespace (a later
  block may use an earlier block's names), in the same kind of seeded directory. They must be
  complete: define what they use or read a shipped file.
- ```` ```text ```` (synopses with UPPERCASE placeholders such as ``PROGRAM.lars``, ``FILE``; sample
  output), or the format's name (```` ```json ````, ```` ```turtle ````, ...): not run. No such block
  may hold a line starting with ``ticker `` or ``$ `` that names a concrete file: a concrete command
  belongs in a console block, where it is run.
- ```` ```sh ````: a command that cannot run here (a Spark cluster, an hour-long benchmark, live TCP,
  ``pip install``, the test suite itself). Each is listed in ``UNRUN`` below with the reason, keyed by
  the doc and the block's first line, so the set is explicit and reviewed: a new unrun block fails
  until it is listed, and a listed block that is gone fails too. A python block that cannot run here
  (it needs a SparkSession) is listed in ``UNRUN`` the same way.
- A block whose output depends on an optional program (graphviz's ``dot``) is listed in ``NEEDS``: it
  runs where the program is installed and is skipped, with the reason, where it is not.

Every fenced block carries a tag. ``PENDING`` names blocks of docs owned by another branch that do
not follow the convention yet (expected failures, strict: one that passes must leave the list).
"""

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
DOCS = ["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))

# Tags of blocks that are run (or listed in UNRUN), and of blocks that are shown only.
RUN = {"console", "python", "sh"}
SHOWN = {"text", "json", "csv", "turtle", "prolog", "mermaid"}

# (doc, first line of an ```sh block) -> why it is not run.
UNRUN = {
    (
        "README.md",
        'pip install -e ".[all]" --config-settings editable_mode=compat && python -m compileall -q ticker_py'
        " && ticker run docs/examples/alarm.lars --stream docs/examples/alarm.stream --format text",
    ): "installs the package",
    ("README.md", "python -m pytest"): "the test suite itself",
    ("docs/semantics.md", "ticker distinguish --atlas --out docs/semantics.md"): (
        "rewrites the docs from the repository's root, a search of about a minute (tests/test_distinguish.py"
        " checks the table against the command)"
    ),
    ("docs/incremental.md", "ticker gen b1 --tp 1000 --window 200 --format text --no-spark --out b1"): (
        "a timing: its figures vary from run to run"
    ),
    ("docs/live.md", "from ticker_py.live.spark_stream import folder_atoms, rate_atoms, run_stream"): (
        "needs a SparkSession and a streaming source"
    ),
    (
        "docs/benchmarks.md",
        "ticker gen diamond --tp 300 --window 100 --rate 1000 --format text --no-spark --out diamond",
    ): "a timing: ticker gen and ticker run print their own times, which vary from run to run",
    ("docs/spark.md", "python benchmarks/spark_pays.py --pairs 3 --shards 2,4 box cooling caching gen"): (
        "a measurement of minutes on Spark"
    ),
    ("docs/spark.md", "ticker run prog.lars --stream s.parquet --spark --shards 8                  # plan: auto"): (
        "starts Spark on a user's Parquet stream (tests/test_spark.py runs every plan)"
    ),
    ("docs/spark.md", "from ticker_py import read_results"): (
        "starts Spark on a user's Parquet stream (tests/test_spark.py runs these calls)"
    ),
    (
        "docs/spark.md",
        "pip wheel --no-deps -w dist .                                 # dist/ticker_py-0.1.0-py3-none-any.whl",
    ): "a Spark cluster",
    ("docs/spark.md", "from pyspark.sql import SparkSession"): "a Spark cluster",
    ("docs/spark.md", "ticker gen diamond --tp 100000 --rate 1000 --out /tmp/d8 --spark"): "half an hour on Spark",
    (
        "docs/native.md",
        "python benchmarks/native_micro.py --quick    # n in {10, 100}, k in {100, 1000}, 100 time points",
    ): ("benchmarks of minutes on a shared machine"),
}

# (doc, first line of a block) -> (a program it needs on PATH, what the block prints without it): skipped, with that
# reason, where the program is missing.
NEEDS = {
    ("docs/pictures.md", "$ ticker explain alarm.lars --stream alarm.stream --at 2 alert --out explain-alarm.png"): (
        "dot",
        "graphviz's dot is not installed: the command prints a note that matplotlib draws the tree",
    )
}

# (doc, first line of a block) -> why it fails in this tree.
PENDING: dict = {}

# (doc, first line of a block) -> runs longer than a few seconds.
SLOW: dict = {}

FENCE = re.compile(r"^```(\S*)\s*$")
# A file name with a lower-case stem: a concrete file, not a placeholder such as PROGRAM.lars.
CONCRETE_FILE = re.compile(r"(?<![\w.{])[\w./-]*[a-z][\w-]*\.(?:lars|stream|nt|ttl|jsonl|csv|parquet|json|lp|py)\b")


@dataclass(frozen=True)
class Block:
    doc: str
    line: int  # of the opening fence, 1-based
    tag: str
    body: tuple

    @property
    def key(self) -> tuple:
        return (self.doc, self.body[0].strip() if self.body else "")


def blocks_of(doc: str) -> list:
    lines = (ROOT / doc).read_text(encoding="utf-8").split("\n")
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            start, tag, body = i, m.group(1), []
            i += 1
            while i < len(lines) and not re.match(r"^```\s*$", lines[i]):
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise AssertionError(f"{doc}:{start + 1}: fenced block is not closed")
            found.append(Block(doc, start + 1, tag, tuple(body)))
        i += 1
    return found


ALL = [b for doc in DOCS for b in blocks_of(doc)]


def params():
    for b in ALL:
        marks = []
        if b.key in PENDING:
            marks.append(pytest.mark.xfail(reason=PENDING[b.key], strict=True))
        if b.key in SLOW:
            marks.append(pytest.mark.slow)
        yield pytest.param(b, id=f"{b.doc}:{b.line}", marks=marks)


@pytest.fixture
def seeded(tmp_path):
    for p in EXAMPLES.iterdir():
        if p.is_file():
            shutil.copy(p, tmp_path / p.name)
    bin_dir = tmp_path / ".bin"
    bin_dir.mkdir()
    script = bin_dir / "ticker"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ticker_py.cli "$@"\n')
    script.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("COLUMNS", None)
    return tmp_path, env


def commands_of(block: Block) -> list:
    """The (command, expected output lines, line number) of a console block."""
    out = []
    for n, text in enumerate(block.body):
        if text.startswith("$ "):
            out.append((text[2:], [], block.line + 1 + n))
        elif out:
            out[-1][1].append(text)
        elif text.strip():
            raise AssertionError(f"{block.doc}:{block.line + 1 + n}: console output before any '$ ' command")
    return out


def normalised(lines) -> list:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def run_console(block: Block, cwd: Path, env: dict) -> None:
    commands = commands_of(block)
    assert commands, f"{block.doc}:{block.line}: a console block without a '$ ' command"
    for command, expected, line in commands:
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=600,
        )
        got = normalised(done.stdout.split("\n"))
        assert got == normalised(expected), (
            f"{block.doc}:{line}: `{command}` printed (status {done.returncode}):\n" + "\n".join(got)
        )


def run_python(block: Block, cwd: Path) -> None:
    earlier = [
        b for b in ALL if b.doc == block.doc and b.tag == "python" and b.line <= block.line and b.key not in UNRUN
    ]
    namespace = {"__name__": "__docs__"}
    old = Path.cwd()
    os.chdir(cwd)
    try:
        for b in earlier:
            code = compile("\n" * b.line + "\n".join(b.body), f"{b.doc}", "exec")
            exec(code, namespace)
    finally:
        os.chdir(old)


def concrete_commands(block: Block) -> list:
    return [
        text
        for text in block.body
        if (text.startswith("ticker ") or text.startswith("$ ")) and CONCRETE_FILE.search(text.split("#")[0])
    ]


@pytest.mark.parametrize("block", list(params()))
def test_example(block, seeded):
    cwd, env = seeded
    assert block.tag, f"{block.doc}:{block.line}: a fenced block without a tag (console, python, text, sh, ...)"
    assert block.tag in RUN | SHOWN, (
        f"{block.doc}:{block.line}: unknown tag {block.tag!r}: one of {sorted(RUN | SHOWN)}"
    )
    if block.key in NEEDS and shutil.which(NEEDS[block.key][0]) is None:
        pytest.skip(NEEDS[block.key][1])
    if block.key in UNRUN:
        assert block.tag in ("sh", "python"), f"{block.doc}:{block.line}: only sh and python blocks go unrun"
    elif block.tag == "console":
        run_console(block, cwd, env)
    elif block.tag == "python":
        run_python(block, cwd)
    elif block.tag == "sh":
        assert block.key in UNRUN, f"{block.doc}:{block.line}: an unrun command block not listed in UNRUN: {block.key}"
    else:
        concrete = concrete_commands(block)
        assert not concrete, (
            f"{block.doc}:{block.line}: a concrete command outside a console block (make it a console"
            f" block, or an sh block listed in UNRUN): {concrete[0]}"
        )


def test_unrun_blocks_exist():
    """Every UNRUN, NEEDS, PENDING and SLOW entry names a block that is there."""
    sh = {b.key for b in ALL if b.tag in ("sh", "python")}
    keys = {b.key for b in ALL}
    assert set(UNRUN) <= sh, sorted(set(UNRUN) - sh)
    assert set(NEEDS) <= keys, sorted(set(NEEDS) - keys)
    assert set(PENDING) <= keys, sorted(set(PENDING) - keys)
    assert set(SLOW) <= keys, sorted(set(SLOW) - keys)


def test_examples_ship_what_the_docs_use():
    """Every file a console command names by a bare name is shipped in docs/examples/ (or made by the block)."""
    shipped = {p.name for p in EXAMPLES.iterdir()}
    for b in ALL:
        if b.tag != "console":
            continue
        made = set()
        for command, _, line in commands_of(b):
            for word in re.findall(r"--out(?:put)?\s+(\S+)|>\s*(\S+)", command):
                made.update(w.split("/")[0] for w in word if w)
            for token in command.split("#")[0].split():
                m = CONCRETE_FILE.fullmatch(token)
                if m and "/" not in token:
                    assert token in shipped or token in made, f"{b.doc}:{line}: {token} is not in docs/examples/"
