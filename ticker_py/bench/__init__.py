"""Benchmarks: suites (:mod:`.suites`), measuring (:mod:`.runner`), reports and plots (:mod:`.report`),
and the ``ticker bench`` command (:mod:`.cli`). See benchmarks/README.md."""
