"""Pictures of answer streams: timelines, engines and semantics side by side, HTML reports.

The data of a picture is kept apart from its drawing, so that the SVG/PNG figure, the HTML
report's table and a notebook's ``_repr_html_`` show the same thing:

* :mod:`.timeline` — the data: :class:`~.timeline.Timeline`, one lane per derived atom (per run
  when runs are compared) with the intervals of time points in which it holds, built from results;
  the ``--atoms`` selection. It reads only the stream vocabulary (floor 0 of docs/architecture.md),
  so that :class:`~ticker_py.streams.model.Result` can show itself.
* :mod:`.draw` — the matplotlib figure of a timeline (imported only when a picture is made).
* :mod:`.html` — self-contained HTML: the report page (inline SVG, a filterable table, no network)
  and the compact ``_repr_html_`` of results and explanations.
What ``ticker plot`` and ``ticker compare --plot`` draw (a run of a program, an engine or a
semantics comparison) is :mod:`ticker_py.pictures`, which runs programs and so sits above the API.

Nothing here is imported by ``ticker run``.
"""
