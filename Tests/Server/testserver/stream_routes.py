"""Bodies that arrive over time: a line feed and an endless stream (streaming tests)."""

import time

from .common import MAX_DELAY, first, jdump


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


EXACT_ROUTES = {
    "/ndjson": StreamRoutes.r_ndjson,
    "/endless": StreamRoutes.r_endless,
}

PREFIX_ROUTES = []
