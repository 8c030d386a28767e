"""Engines and the registry that creates them by name.

``auto`` picks the native engine for positive and stratified programs (without
constraints) and the incremental engine otherwise.
"""

from __future__ import annotations

import importlib

from ..analysis import Analysis
from ..errors import Diagnostic, EngineUnsupported, UsageError
from .base import Engine, EngineOptions

__all__ = ["Engine", "EngineOptions", "ENGINES", "create_engine", "check_engine", "resolve_engine"]

ENGINES = {
    "clingo": ("ticker_py.engines.clingo_engine", "ClingoEngine"),
    "incremental": ("ticker_py.engines.incremental", "IncrementalEngine"),
    "native": ("ticker_py.engines.native", "NativeEngine"),
}


def resolve_engine(name: str, analysis: Analysis) -> str:
    """The concrete engine name for ``name`` (``auto`` resolved)."""
    if name == "auto":
        return analysis.engines[0]
    if name not in ENGINES:
        raise UsageError(Diagnostic(f"unknown engine '{name}'",
                                    notes=(f"engines: auto, {', '.join(ENGINES)}",)))
    return name


def engine_class(name: str):
    module, cls = ENGINES[name]
    return getattr(importlib.import_module(module), cls)


def check_engine(name: str, analysis: Analysis) -> str:
    """The concrete engine name for ``name``; raises EngineUnsupported if it cannot run the program."""
    name = resolve_engine(name, analysis)
    if name not in analysis.engines:
        raise EngineUnsupported(Diagnostic(
            f"the {name} engine cannot run this program",
            notes=tuple(unsupported_reasons(analysis)) + (f"engines that can: {', '.join(analysis.engines)}",)))
    return name


def create_engine(name: str, analysis: Analysis, options: EngineOptions = EngineOptions()) -> Engine:
    """Create an engine for an analysed program; raises EngineUnsupported if it cannot run it.

    ``auto`` tries the engines that can run the program in order: one that refuses the program
    when it is created falls back to the next."""
    if name != "auto":
        return engine_class(check_engine(name, analysis))(analysis, options)
    for i, candidate in enumerate(analysis.engines):
        try:
            return engine_class(candidate)(analysis, options)
        except EngineUnsupported:
            if i == len(analysis.engines) - 1:
                raise


def unsupported_reasons(analysis: Analysis) -> list:
    """Why the native engine refuses a program: the rules and the reasons."""
    out = []
    for e in analysis.negative_cycle:
        out.append(f"{e.element.location}: '{e.head}' depends negatively on '{e.body}' through a cycle"
                   " (not stratified)")
    for r in analysis.program.rules:
        if r.is_constraint:
            out.append(f"{r.location}: constraint '{r}' needs a solver")
    for r in analysis.interval_rules:
        out.append(f"{r.location}: interval in rule '{r}' (the native engine takes intervals in facts only)")
    return out
