"""Counter-based random draws: every number is a pure function of its keys.

``hash64(seed, stream, *keys)`` chains the splitmix64 finaliser over
``seed, crc32(stream), key1, key2, ...`` (all as unsigned 64-bit integers); ``uniform`` maps the
top 53 bits to [0, 1). Keys broadcast like numpy arrays, so a whole time block is drawn at once,
and any time range can be drawn independently of the others (Spark partitions, block sizes).
"""

from __future__ import annotations

import zlib

import numpy as np

__all__ = ["hash64", "uniform", "randint", "MAX_SEED"]

#: the largest seed: a seed is hashed as a 64-bit unsigned integer (a larger or negative one would
#: silently stand for the same stream as another)
MAX_SEED = 2**64 - 1

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_MASK = (1 << 64) - 1


def _mix(z):
    z = z + _GAMMA
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _u64(key):
    if isinstance(key, int):
        return np.uint64(key & _MASK)
    return np.asarray(key).astype(np.uint64)


def hash64(seed: int, stream: str, *keys):
    """64-bit hash of ``(seed, stream, keys...)``; array keys broadcast."""
    with np.errstate(over="ignore"):
        h = _mix(_u64(seed))
        h = _mix(h ^ np.uint64(zlib.crc32(stream.encode())))
        for k in keys:
            h = _mix(h ^ _u64(k))
    return h


def uniform(seed: int, stream: str, *keys):
    """Uniform float64 draws in [0, 1)."""
    return (hash64(seed, stream, *keys) >> np.uint64(11)).astype(np.float64) * 2.0**-53


def randint(n: int, seed: int, stream: str, *keys):
    """Uniform int64 draws in [0, n)."""
    return np.floor(uniform(seed, stream, *keys) * n).astype(np.int64)
