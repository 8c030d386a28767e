"""Pictures of answer streams: the data of a timeline (:mod:`.timeline`, the ``--atoms`` selection
:mod:`.select`) kept apart from its matplotlib figure (:mod:`.draw`) and its self-contained HTML
(:mod:`.html`), so that the figure, the report's table and a notebook's ``_repr_html_`` show the
same thing. It reads only the stream vocabulary (floor 0), so that results can draw themselves;
nothing here is imported by ``ticker run``.
"""
