"""Bodies that arrive over time: a line feed and an endless stream (streaming tests), and coded
(compressed) bodies for a stream's own decoding."""

import os
import threading
import time
import zlib

from .common import MAX_DELAY, first, jdump
from .payloads import pattern_pieces, pattern_sha256

# The pattern compressed with brotli and zstd (Python has neither), made with the CLI tools:
#   brotli -q 11 -o pattern-N.br pattern-N.bin; zstd -19 pattern-N.bin -o pattern-N.zst
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
_CODED = {}  # (coding, n) -> the coded body
_CODED_LOCK = threading.Lock()


def coded_pattern(coding, n):
    """The first n pattern bytes in `coding` (gzip, deflate, raw-deflate; br and zstd from the
    fixtures, for the sizes there), or None."""
    with _CODED_LOCK:
        cached = _CODED.get((coding, n))
    if cached is not None:
        return cached
    if coding in ("br", "zstd"):
        path = os.path.join(FIXTURES, "pattern-%d.%s" % (n, "br" if coding == "br" else "zst"))
        if not os.path.exists(path):
            return None
        with open(path, "rb") as f:
            body = f.read()
    elif coding in ("gzip", "deflate", "raw-deflate"):
        bits = {"gzip": 31, "deflate": 15, "raw-deflate": -15}[coding]
        compressor = zlib.compressobj(6, zlib.DEFLATED, bits)
        body = b"".join([compressor.compress(piece) for piece in pattern_pieces(0, n)] + [compressor.flush()])
    elif coding == "deflate,gzip":
        # Two codings: deflate applied first, then gzip (decoded in the other order).
        compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
        body = compressor.compress(coded_pattern("deflate", n)) + compressor.flush()
    else:
        return None
    with _CODED_LOCK:
        _CODED[(coding, n)] = body
    return body


class StreamRoutes:
    """Chunked bodies written piece by piece, flushed, so a client sees them as they come."""

    def _chunk(self, data):
        self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
        self.wfile.flush()

    def r_ndjson(self, rest):
        """/ndjson?count=N&delay=S: N JSON lines {"n": i} (one chunk each, S seconds apart), then the end."""
        try:
            count = min(int(first(self.qs, "count", "5")), 100000)
            delay = min(max(float(first(self.qs, "delay", "0")), 0.0), MAX_DELAY)
        except ValueError:
            return self.send_error_json(400, "bad_request", "bad ndjson params")
        self.start_stream(200, content_type="application/x-ndjson", chunked=True)
        if self.command == "HEAD":
            return
        for n in range(count):
            if delay and n:
                time.sleep(delay)
            self._chunk(jdump({"n": n}) + b"\n")
        self.wfile.write(b"0\r\n\r\n")

    def r_endless(self, rest):
        """/endless?chunk=N: chunks of N bytes (default 16384) until the client goes away."""
        try:
            size = min(max(int(first(self.qs, "chunk", "16384")), 1), 1 << 20)
        except ValueError:
            return self.send_error_json(400, "bad_request", "bad chunk size")
        self.start_stream(200, chunked=True)
        piece = b"x" * size
        try:
            while True:
                self._chunk(piece)
        except OSError:
            self.close_connection = True


    def r_coded(self, rest):
        """/coded/<coding>/<n>?cut=K&corrupt=1: the first n pattern bytes in <coding> (gzip,
        deflate, raw-deflate sent as deflate, deflate,gzip (both), br, zstd; br and zstd for the
        fixtures' sizes only),
        with X-Decoded-SHA256, in chunks; cut: only the first K coded bytes (the chunked body still
        ends properly); corrupt: coded bytes in the middle overwritten."""
        coding, _, size = rest.partition("/")
        try:
            n = int(size)
            cut = int(first(self.qs, "cut", "-1"))
        except ValueError:
            return self.send_error_json(400, "bad_request", "bad size")
        body = coded_pattern(coding, n) if 0 < n <= 1 << 28 else None
        if body is None:
            return self.send_error_json(404, "not_found", "no such coded body")
        if cut >= 0:
            body = body[:cut]
        if first(self.qs, "corrupt", "") == "1":
            middle = len(body) // 2
            body = body[:middle] + bytes(64) + b"\xff" * 64 + body[middle + 128:]
        header = {"raw-deflate": "deflate", "deflate,gzip": "deflate, gzip"}.get(coding, coding)
        self.start_stream(200, [("Content-Encoding", header), ("X-Decoded-SHA256", pattern_sha256(n))], chunked=True)
        if self.command == "HEAD":
            return
        try:
            for start in range(0, len(body), 16384):
                self._chunk(body[start:start + 16384])
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            self.close_connection = True

    def r_coded_events(self, rest):
        """/coded-events/<count>: an event stream of <count> events "data: x", gzip-compressed
        (about a thousandth of its size on the wire), then the end."""
        try:
            count = int(rest)
        except ValueError:
            return self.send_error_json(400, "bad_request", "bad count")
        if not 0 < count <= 1 << 25:
            return self.send_error_json(400, "bad_request", "bad count")
        key = ("events", count)
        with _CODED_LOCK:
            body = _CODED.get(key)
        if body is None:
            compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
            event, left, pieces = b"data: x\n\n", count, []
            while left > 0:
                step = min(left, 100000)
                pieces.append(compressor.compress(event * step))
                left -= step
            body = b"".join(pieces + [compressor.flush()])
            with _CODED_LOCK:
                _CODED[key] = body
        self.start_stream(200, [("Content-Encoding", "gzip"), ("Cache-Control", "no-cache")],
                          content_type="text/event-stream", length=len(body))
        if self.command != "HEAD":
            try:
                self.wfile.write(body)
            except OSError:
                self.close_connection = True


EXACT_ROUTES = {
    "/ndjson": StreamRoutes.r_ndjson,
    "/endless": StreamRoutes.r_endless,
}

PREFIX_ROUTES = [
    ("/coded/", StreamRoutes.r_coded),
    ("/coded-events/", StreamRoutes.r_coded_events),
]
