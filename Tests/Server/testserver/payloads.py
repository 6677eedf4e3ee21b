"""Response bodies the tests can check without storing them: the deterministic byte pattern (byte
i is i % 251) with its SHA-256, and gzip bombs."""

import hashlib
import threading
import zlib

from .common import PIECE

# Deterministic byte pattern: byte i == i % 251.
PATTERN_BLOCK = bytes(i % 251 for i in range(251)) * (PIECE // 251 + 2)
PATTERN_VIEW = memoryview(PATTERN_BLOCK)
_SHA_CACHE = {}
_SHA_LOCK = threading.Lock()


def pattern_pieces(offset, length):
    """Yield memoryviews covering pattern bytes [offset, offset+length)."""
    end = offset + length
    pos = offset
    while pos < end:
        n = min(PIECE, end - pos)
        start = pos % 251
        yield PATTERN_VIEW[start:start + n]
        pos += n


def pattern_sha256(n):
    with _SHA_LOCK:
        cached = _SHA_CACHE.get(n)
    if cached is not None:
        return cached
    h = hashlib.sha256()
    for piece in pattern_pieces(0, n):
        h.update(piece)
    digest = h.hexdigest()
    with _SHA_LOCK:
        _SHA_CACHE[n] = digest
    return digest


_BOMBS = {}  # n -> (gzip body, SHA-256 of the n decoded bytes)


def gzip_bomb(n):
    """n zero bytes compressed with gzip, built in 1 MiB steps (never n bytes in memory)."""
    with _SHA_LOCK:
        cached = _BOMBS.get(n)
    if cached is not None:
        return cached
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    digest = hashlib.sha256()
    zeros = bytes(1 << 20)
    out = []
    left = n
    while left > 0:
        step = zeros[:min(left, len(zeros))]
        out.append(compressor.compress(step))
        digest.update(step)
        left -= len(step)
    out.append(compressor.flush())
    result = (b"".join(out), digest.hexdigest())
    with _SHA_LOCK:
        _BOMBS[n] = result
    return result
