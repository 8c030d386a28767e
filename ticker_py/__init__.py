"""ticker_py: a stream reasoner for LARS programs.

Programs are evaluated at every time point of a stream by one of four engines that give
the same answers: ``clingo`` (the static encoding, solved one-shot), ``incremental`` (the
stratified part native, the rest solved by clingo), ``incremental-pure`` (the incremental
encoding, solved multi-shot) and ``native`` (annotation-based, positive and stratified
programs). See ``docs/`` for the language, semantics, formats and CLI.
"""

import importlib

__version__ = "0.1.0"

_EXPORTS = {
    "Reasoner": "api",
    "Results": "api",
    "run": "api",
    "load_program": "api",
    "read_results": "shard",
    "distinguish": "distinguishing",
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
