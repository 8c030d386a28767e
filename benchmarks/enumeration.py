"""Every answer stream with the incremental engine (``--models 0``): where the time goes.

    python benchmarks/enumeration.py                  # B1, n = 200, 1000 time points, seed 0
    python benchmarks/enumeration.py --n 40 --tp 300

Runs the incremental engine over the stream in this process (engine construction + every tick,
no output: what ``--format none`` costs after start-up), recording the program it gives clingo at
every tick (U's rules + that tick's facts). Then, on the same programs, one fresh Control each:

* ``clingo, on_model doing nothing``: ``Control.solve(on_model=...)``: one Python call per model;
* ``read``: every model's shown symbols read by the engine's
  :meth:`~ticker_py.engines.clingo_engine.ModelReader.split` (what the engine does);

each for the distinct programs (the engine reuses U's answers when a tick's facts recur) and for
every tick's program (what an engine without reuse would enumerate). CPU seconds of this process.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import clingo  # noqa: E402

from ticker_py.api import Reasoner, load_program  # noqa: E402
from ticker_py.engines import hybrid  # noqa: E402
from ticker_py.engines.clingo_engine import ModelReader  # noqa: E402
from ticker_py.workloads import generate, program  # noqa: E402


def control(rules: str, facts: str) -> clingo.Control:
    ctl = clingo.Control(["--models=0"], message_limit=0)
    ctl.add("base", [], rules)
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    return ctl


def on_model_nothing(ctl: clingo.Control) -> int:
    n = [0]

    def seen(model):
        n[0] += 1

    ctl.solve(on_model=seen)
    return n[0]


def read(reader: ModelReader, ctl: clingo.Control) -> int:
    with ctl.solve(yield_=True) as handle:
        return len([reader.split(m.symbols(shown=True), 0) for m in handle])


def timed(fn, programs) -> tuple:
    start = time.process_time()
    models = sum(fn(control(rules, facts)) for rules, facts in programs)
    return time.process_time() - start, models


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workload", default="b1")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--tp", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)

    analysis = load_program(program(a.workload, window=a.n))
    stream = list(generate(a.workload, a.seed, tp=a.tp, window=a.n))
    given = []  # (rules, facts) of every tick
    facts_of, program_of = hybrid.HybridEngine._facts, hybrid.HybridEngine._program
    last = []

    def facts_recorded(self, *args):
        last[:] = [facts_of(self, *args)]
        return last[0]

    def program_recorded(self, time):  # called after _facts: this tick's rules and facts
        program_of(self, time)
        given.append((self.rules[0], last[0]))

    start = time.process_time()
    reasoner = Reasoner(analysis, engine="incremental", models=0)
    answer_streams = sum(len(r.models) for r in reasoner.feed(stream))
    engine = time.process_time() - start
    hybrid.HybridEngine._facts, hybrid.HybridEngine._program = facts_recorded, program_recorded
    try:  # the same run again, recording (not timed)
        list(Reasoner(analysis, engine="incremental", models=0).feed(stream))
    finally:
        hybrid.HybridEngine._facts, hybrid.HybridEngine._program = facts_of, program_of
    distinct = list(dict.fromkeys(given))
    reader = ModelReader(reasoner.engine.upper, "derived")

    print(
        f"{a.workload}, n = {a.n}, {a.tp} time points, seed {a.seed}: {answer_streams:,} answer streams; "
        f"{len(given)} ticks give clingo a program, {len(distinct)} distinct"
    )
    print(f"engine, every tick (in this process, no output): {engine:.2f} s CPU")
    print("| clingo on U's programs | distinct programs | every tick's program |")
    print("|---|---|---|")
    for name, fn in (
        ("ground only", lambda ctl: 0),
        ("ground + enumerate, on_model doing nothing", on_model_nothing),
        ("ground + enumerate + read (ModelReader.split, the engine's path)", lambda ctl: read(reader, ctl)),
    ):
        cells = []
        for programs in (distinct, given):
            cpu, models = timed(fn, programs)
            cells.append(f"{cpu:.2f} s ({models:,} models)")
        print(f"| {name} | {' | '.join(cells)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
