"""Benchmarks: suites (:mod:`.suites`), measuring (:mod:`.runner`), reports and plots (:mod:`.report`),
a session's results (:mod:`.results`); the ``ticker bench`` command is :mod:`ticker_py.cli.bench`.
See benchmarks/README.md."""
