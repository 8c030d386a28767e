"""One run specification and three stages: the spec's checks name the API's keyword or the command
line's option; a record of ``ticker run`` passes four generators and the stream is opened once; the
input stage is the one place a time going back is refused and incoming atoms are checked and
renamed (API, live pushes, compare, shard cells); the output stage decides what the engine sends;
the public surface of ``import ticker_py``."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ticker

import ticker_py
from ticker_py.errors import StreamError, UsageError
from ticker_py.spec import RunSpec

ROOT = Path(__file__).resolve().parent.parent
MIXED = "q(X) :- p(X).\nr(X,Y) :- p(X,Y).\n"  # p/1 and p/2: two predicates, one internal name each


# ---------------------------------------------------------------- the specification


@pytest.mark.parametrize(
    "keywords,api,cli",
    [
        ({"models": -1}, "models must be an integer >= 0, not -1", "--models must be an integer >= 0, not -1"),
        ({"engine": "warp"}, "unknown engine 'warp'", "unknown --engine 'warp'"),
        ({"factorize": True, "semantics": "r4"}, "factorize=True runs the default semantics", "--factorize runs"),
        ({"changes": True, "models": 2}, "changes needs a single answer stream", "--changes needs a single"),
        ({"shards": 2, "every": "signal"}, "every signal cannot be sharded", "--every signal cannot be sharded"),
        ({"output": "tcp::0", "out": "f"}, "output and out exclude each other", "--output and --out exclude"),
    ],
)
def test_one_check_names_the_keyword_in_the_api_and_the_option_on_the_command_line(keywords, api, cli):
    with pytest.raises(UsageError) as err:
        RunSpec.of(**keywords)
    assert err.value.diagnostics[0].message.startswith(api)
    with pytest.raises(UsageError) as err:
        RunSpec.of(cli=True, **keywords)
    assert err.value.diagnostics[0].message.startswith(cli)


def test_a_spec_is_built_once_and_set_over():
    spec = RunSpec.of(semantics="default", origin="first", models=0)
    assert str(spec.semantics) == "default,origin=first" and spec.models_per_tick == 0
    assert repr(spec) == "RunSpec(models=0, semantics='default,origin=first')"
    assert RunSpec().models_per_tick == 1 and RunSpec(factorize=True).models_per_tick == 0
    assert RunSpec(const={"n": 2}).constants == {"n": 2} and RunSpec(background="b.lars").background == ("b.lars",)
    over = RunSpec.of(spec, until=3)
    assert over.until == 3 and over.semantics == spec.semantics
    results = ticker_py.run("a :- not b. b :- not a.", [(0, [])], spec=spec, engine="clingo", until=1)
    assert [len(r.models) for r in results] == [2, 2]
    with pytest.raises(UsageError, match="spec must be a RunSpec"):
        ticker_py.run("a.", [], spec={"models": 0})


def test_the_api_functions_show_the_specs_keywords_and_defaults():
    run = inspect.signature(ticker_py.run).parameters
    assert run["models"].default is None and run["max_gap"].default == 100000 and run["every"].default == "time"
    assert "format" not in run and "shards" not in run  # what run does not use it does not take
    with pytest.raises(UsageError, match="unknown keyword argument 'format'"):
        ticker_py.run("a.", [], format="text")
    assert inspect.signature(ticker_py.explain_at).parameters["models"].default == 0  # all, as ticker explain


def test_a_program_loaded_already_takes_no_program_keyword():
    analysis = ticker_py.load_program("q :- p.")
    with pytest.raises(UsageError, match="const= needs the program's source, not its analysis"):
        ticker_py.Reasoner(analysis, const={"n": 1})


# ---------------------------------------------------------------- ticker run: four generators, one reading


def _run_inspected(tmp_path, patch: str) -> tuple:
    prog, stream = tmp_path / "p.lars", tmp_path / "s.stream"
    prog.write_text("q(X) :- p(X) in [2].\n")
    stream.write_text("".join(f"{t}: p({t})\n" for t in range(5)))
    code = (
        "import inspect, json, sys\nfrom ticker_py.cli import main\n"
        + patch
        + f"\nstatus = main(['run', {str(prog)!r}, '--stream', {str(stream)!r}, '--engine', 'native'])\n"
        "print(json.dumps([status, seen]), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    status, seen = json.loads(proc.stderr.strip().splitlines()[-1])
    assert status == 0 and proc.stdout.count("\n") == 5
    return seen


def test_ticker_run_passes_each_record_through_four_generators(tmp_path):
    """Read at the reader, a record's way to the driver: the reader (its file's generator delegating
    to the format's), the signal guard, the input stage, the driver."""
    seen = _run_inspected(
        tmp_path,
        "from ticker_py.syntax import ground_atoms\nseen = []\nline = ground_atoms.AtomReader.line\n"
        "def traced(self, *a, **k):\n"
        "    seen.append([f.function for f in inspect.stack() if f.frame.f_code.co_flags & inspect.CO_GENERATOR])\n"
        "    return line(self, *a, **k)\n"
        "ground_atoms.AtomReader.line = traced\n",
    )
    below_driver = [stack[: stack.index("drive") + 1] for stack in seen]
    assert below_driver[2] == ["read_text", "from_path", "records", "records", "drive"]  # reader, guard, input, driver
    assert all(stack == below_driver[2] for stack in below_driver[1:])


def test_ticker_run_opens_its_stream_once(tmp_path):
    seen = _run_inspected(
        tmp_path,
        "from ticker_py.stages import input as stage\nseen = []\nopened = stage.records_from\n"
        "def counted(*a, **k):\n    seen.append(1)\n    return opened(*a, **k)\n"
        "stage.records_from = counted\n",
    )
    assert seen == [1]


# ---------------------------------------------------------------- the input stage: one place


@pytest.mark.parametrize(
    "name,text,where",
    [
        ("s.stream", "0: p(1)\n2: p(2)\n1: p(3)\n", "s.stream:3:1-2"),
        ("s.jsonl", '{"t": 0}\n{"t": 2}\n{"t": 1, "atoms": ["p(3)"]}\n', "s.jsonl:3:1-2"),
        ("s.csv", "t,atom\n0,p(1)\n2,p(2)\n1,p(3)\n", "s.csv:4:1-2"),
    ],
)
def test_a_time_going_back_is_refused_located_after_writing_what_came_before(capsys, tmp_path, name, text, where):
    prog, stream = tmp_path / "p.lars", tmp_path / name
    prog.write_text("q(X) :- p(X).\n")
    stream.write_text(text)
    code, out, err = ticker(capsys, "run", prog, "--stream", stream, "--format", "text")
    assert code == 2 and err.startswith(f"{stream.parent / where}: error: time 1 after time 2"), err
    assert [line.split()[0] for line in out.splitlines()] == ["t=0", "t=1", "t=2"]


def test_the_api_refuses_a_time_going_back_in_a_stream_and_in_append():
    with pytest.raises(StreamError, match="time 1 after time 2"):
        ticker_py.run("q :- p.", [(0, ["p"]), (2, []), (1, [])])
    r = ticker_py.Reasoner("q :- p.")
    r.evaluate(3)
    with pytest.raises(StreamError, match="time 2 after time 3: time must not decrease"):
        r.append(2, ["p"])


def test_live_pushes_go_through_the_input_stage():
    """A pushed atom is renamed as a fed one: p/1 and p/2 are two predicates (pushes skipped the
    renaming before, and p(1,2) derived nothing)."""
    from ticker_py.live import LiveReasoner

    live = LiveReasoner(MIXED, engine="native")
    live.push(0, ["p(1)", "p(1,2)"])
    (result,) = live.close()
    assert result.models[0].sorted_atoms() == ["q(1)", "r(1,2)"]
    fed = ticker_py.run(MIXED, [(0, ["p(1)", "p(1,2)"])], engine="native")
    assert fed[0].models == result.models
    with pytest.raises(StreamError, match="intensional predicate 'q/1'"):
        LiveReasoner(MIXED, engine="native").push(0, ["q(1)"])


def test_compare_and_shard_cells_check_and_rename_as_a_run_does():
    from ticker_py.shard import run_sharded_local

    stream = [(0, ["p(1)", "p(1,2)"]), (1, ["p(2)"])]
    single = [r.models for r in ticker_py.run(MIXED, stream, engine="clingo")]
    assert ticker_py.compare_engines(MIXED, stream, ["clingo", "native"]).agree
    assert [r.models for r in run_sharded_local(MIXED, stream, shards=2, engine="clingo")] == single
    with pytest.raises(StreamError, match="intensional predicate 'q/1'"):
        ticker_py.compare_engines(MIXED, [(0, ["q(1)"])], ["clingo"])


# ---------------------------------------------------------------- the output stage decides


@pytest.mark.parametrize(
    "options,changes_only",
    [
        ({}, True),  # JSON Lines of one answer stream: kept up to date from the changes
        ({"format": "none"}, True),
        ({"changes": True}, True),
        ({"show_at": True}, False),  # pins printed: whole answer streams
        ({"models": 2}, False),
        ({"factorize": True}, False),
        ({"consequences": "brave"}, False),
    ],
)
def test_the_output_stage_says_what_the_engine_sends(options, changes_only):
    from ticker_py import load_program
    from ticker_py.stages.output import Output

    assert Output(RunSpec(**options), load_program("a.")).changes_only is changes_only


# ---------------------------------------------------------------- the public surface


PUBLIC = (
    "run",
    "Reasoner",
    "RunSpec",
    "run_sharded",
    "read_results",
    "compare_engines",
    "compare_semantics",
    "distinguish",
)


@pytest.mark.parametrize("name", PUBLIC + ("explain_at", "load_program"))
def test_the_public_functions_document_their_parameters(name):
    function = getattr(ticker_py, name)
    doc = inspect.getdoc(function)
    for section in ("Parameters\n----------", "See Also\n--------"):
        assert section in doc or name == "RunSpec", (name, section)
    if not inspect.isclass(function):
        assert "Returns\n-------" in doc, name
    parameters = doc[doc.index("Parameters") : doc.index("See Also")] if "Parameters" in doc else ""
    for keyword in getattr(function, "spec_keywords", ()):
        assert keyword in parameters, (name, keyword)


def test_import_ticker_py_imports_nothing_until_a_name_is_used():
    code = "import sys, ticker_py\nprint(sorted(m for m in sys.modules if m.startswith('ticker_py')))\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.stdout.strip() == "['ticker_py']"
    assert set(PUBLIC + ("explain_at",)) <= set(ticker_py.__all__) <= set(dir(ticker_py))


def test_compare_semantics_takes_the_command_lines_list_and_refuses_none():
    program, stream = "q :- p in [1].", [(0, ["p"]), (1, []), (2, [])]
    assert ticker_py.compare_semantics(program, stream, "default,r4").summary == {"window_bounds": 1}
    assert list(ticker_py.compare_semantics(program, stream, "default,default+origin=first").runs) == [
        "default",
        "default,origin=first",
    ]
    with pytest.raises(UsageError, match="no semantics profile to compare"):
        ticker_py.compare_semantics(program, stream, [])
