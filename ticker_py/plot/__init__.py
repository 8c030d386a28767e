"""Pictures of answer streams: a timeline's data (:mod:`.timeline`, :mod:`.select`) apart from its
figure (:mod:`.draw`) and HTML (:mod:`.html`), which show the same thing. It reads only the stream
vocabulary (floor 0), so that results can draw themselves; ``ticker run`` imports none of it."""
