"""Encodings of LARS programs as ASP: static (one tick) and incremental."""

from .static import StaticEncoding, encode_static

__all__ = ["StaticEncoding", "encode_static"]
