"""The native engine: Laser-style annotated semi-naive evaluation (see docs/native.md)."""

from .engine import NativeEngine

__all__ = ["NativeEngine"]
