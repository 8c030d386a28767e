"""The default engine's upper part solved two ways: a fresh Control per tick over the static
encoding (the engine, with its answers kept per facts text) or the incremental encoding grounded
once (``PureIncrementalEngine`` over the upper part, fed the lower atoms at t as its input).

Usage: python benchmarks/upper_part.py [b1|b2] [N] [TP] [MODELS]
Prints the CPU seconds of both over the same stream and, with MODELS 0 (all answer streams),
checks that they give the same answer streams (with MODELS 1 each may pick another of them).
Only for programs whose upper part reads lower atoms at t alone (scenario B).
"""

import sys
import time

from ticker_py.api import load_program
from ticker_py.engines import EngineOptions
from ticker_py.engines.hybrid import HybridEngine
from ticker_py.engines.incremental import PureIncrementalEngine
from ticker_py.streams.model import Model
from ticker_py.workloads import generate, program


class IncrementalUpper(HybridEngine):
    """The default engine with its upper part solved by the incremental encoding."""

    def __init__(self, analysis, options):
        super().__init__(analysis, options)
        self.pure = PureIncrementalEngine(self.upper, EngineOptions(models=options.models))
        self.pending = []
        self.count = 0

    def append(self, t, atoms):
        self.native.append(t, atoms)
        self.count += len(atoms)
        self.pending += [a for a in atoms if a[0] in self.kept and a[0] not in self.lower_preds]

    def evaluate(self, t):
        lower = self.native.evaluate(t).models[0]
        self.pure.append(t, self.pending + [a for a in lower.atoms if a[0] in self.reads])
        self.pending = []
        upper = self.pure.evaluate(t).models
        models = tuple(Model(lower.atoms | m.atoms, lower.pinned | m.pinned) for m in upper)
        return self.diff.result(t, self.count, models)


def main(workload="b1", n=200, tp=1000, models=1) -> int:
    analysis = load_program(program(workload, window=n))
    stream = list(generate(workload, seed=0, tp=tp, window=n))
    answers = {}
    for name, cls in (("fresh Control per tick", HybridEngine), ("incremental encoding", IncrementalUpper)):
        engine = cls(analysis, EngineOptions(models=models))
        cpu, out = time.process_time(), []
        for t, atoms in stream:
            engine.append(t, atoms)
            out.append(frozenset((m.atoms, m.pinned) for m in engine.evaluate(t).models))
        print(f"{workload} n={n} tp={tp} models={models}, upper part by {name}: {time.process_time() - cpu:.2f} s CPU")
        answers[name] = out
    if models:
        return 0
    same = len(set(map(tuple, answers.values()))) == 1
    print("the same answer streams" if same else "DIFFERENT answer streams")
    return 0 if same else 1


if __name__ == "__main__":
    conv = [str, int, int, int]
    sys.exit(main(*(f(a) for f, a in zip(conv, sys.argv[1:]))))
