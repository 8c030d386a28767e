"""ticker_py: a stream reasoner for LARS programs.

A program is evaluated at every time point of a stream by one of four engines that give the same
answers: ``clingo`` (the static encoding, solved one-shot), ``incremental`` (the stratified part
native, the rest solved by clingo), ``incremental-pure`` (the incremental encoding, solved
multi-shot) and ``native`` (annotation-based, positive and stratified programs).

>>> import ticker_py
>>> program = "alarm :- temp(V) in [2], V > 100."
>>> results = ticker_py.run(program, [(0, ["temp(120)"]), (3, [])])
>>> [(r.t, r.models[0].sorted_atoms()) for r in results]
[(0, ['alarm']), (1, ['alarm']), (2, ['alarm']), (3, [])]
>>> r = ticker_py.Reasoner(program, engine="clingo")
>>> r.append(0, ["temp(120)"])
>>> r.evaluate(0).models
(Model({alarm}),)
>>> ticker_py.compare_semantics(program, [(0, ["temp(120)"]), (3, [])], ["default", "r4"]).summary
{'window_bounds': 1}

Every keyword of these functions is a field of the run specification, :class:`RunSpec`, which can
also be given whole (``spec=RunSpec(models=0)``). The functions here are the public surface
(docs/api.md); the rest is for advanced use, in the submodules.
"""

import importlib

__version__ = "0.1.0"

#: the public surface: name -> the module it comes from (imported when first used)
_EXPORTS = {
    # running a program
    "run": "api",
    "Reasoner": "api",
    "RunSpec": "spec",
    "run_sharded": "pipeline",
    "read_results": "shard",
    # comparing and explaining
    "distinguish": "distinguishing",
    "compare_engines": "compare",
    "compare_semantics": "semantics_compare",
    "explain_at": "api",
    # what they take and give
    "load_program": "api",
    "Results": "api",
    "parse_program": "syntax",
    "Program": "ast",
    "Model": "streams.model",
    "Result": "streams.model",
    "TickerError": "errors",
    "ProgramError": "errors",
    "StreamError": "errors",
    "UsageError": "errors",
    "InternalError": "errors",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name):  # imported lazily: the CLI starts without pandas or clingo
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'ticker_py' has no attribute {name!r}")


def __dir__():  # what ``dir(ticker_py)`` and tab completion list: the lazy names too
    return sorted(set(globals()) | set(_EXPORTS))
