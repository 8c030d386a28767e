"""RDF streams: the term mapping, readers of timestamped triples, the N-Triples writer and
background knowledge from RDF files (see ``docs/rdf.md``)."""
