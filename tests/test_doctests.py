"""The runnable examples in the public docstrings."""

import doctest
import importlib

import pytest

MODULES = [
    "ticker_py.api",
    "ticker_py.semantics",
    "ticker_py.semantics_compare",
    "ticker_py.syntax",
    "ticker_py.analysis",
    "ticker_py.analysis.sharding",
    "ticker_py.encode.static",
    "ticker_py.encode.incremental",
    "ticker_py.compare",
    "ticker_py.stages.consequences",
    "ticker_py.stages.drive",
    "ticker_py.explain",
    "ticker_py.explain.text",
    "ticker_py.streams.factorized",
    "ticker_py.streams.answers",
    "ticker_py.windows",
    "ticker_py.xsd",
    "ticker_py.rdf.terms",
    "ticker_py.encode.exact",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert attempted > 0 and failed == 0
