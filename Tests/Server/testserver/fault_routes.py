"""Broken answers: truncated bodies, connections closed early, cut status lines and headers, garbage."""

from .common import STATE_LOCK, first

RECEIVED = {}  # /fault/read-then-close: key -> requests read


class FaultRoutes:
    """Each fault writes raw bytes and closes the connection without a TLS close_notify."""

    def r_fault_truncated(self, rest):
        self._response_started = True
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                         b"Content-Length: 100\r\n\r\n" + b"x" * 50)
        self.hard_close()

    def r_fault_close(self, rest):
        self._response_started = True
        self.hard_close()

    def r_fault_partial_headers(self, rest):
        self._response_started = True
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Ty")
        self.hard_close()

    def r_fault_partial_status(self, rest):
        self._response_started = True
        self.wfile.write(b"HTTP/1.1 20")
        self.hard_close()

    def r_fault_partial_headers_length(self, rest):
        self._response_started = True
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\nX-Cut")
        self.hard_close()

    def r_fault_garbage(self, rest):
        self._response_started = True
        self.wfile.write(b"this is not http\r\n\r\n")
        self.hard_close()

    def r_fault_chunked_truncated(self, rest):
        self._response_started = True
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n"
                         b"a\r\n0123456789\r\n")
        self.hard_close()

    def r_fault_read_then_close(self, rest):
        """Reads the whole request (body included), counts it, and closes without answering: the
        server may have processed it, and the client cannot know."""
        key = first(self.qs, "key", "default")
        with STATE_LOCK:
            RECEIVED[key] = RECEIVED.get(key, 0) + 1
        self._response_started = True
        self.hard_close()

    def r_fault_read_then_close_count(self, rest):
        key = first(self.qs, "key", "default")
        with STATE_LOCK:
            count = RECEIVED.get(key, 0)
        self.send_json({"count": count})

    def r_fault_close_on_revalidation(self, rest):
        """A stale cacheable response with an entity tag; a conditional request for it is read,
        counted and answered by closing the connection."""
        key = first(self.qs, "key", "default")
        if self.headers.get("If-None-Match") is None:
            return self.send(200, b"stored", "text/plain", [("ETag", '"v1"'), ("Cache-Control", "max-age=0")])
        self.r_fault_read_then_close(rest)

    def r_fault_four_digit_status(self, rest):
        self._response_started = True
        self.wfile.write(b"HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\nok")
        self.hard_close()

    def r_fault_unsupported_version(self, rest):
        self._response_started = True
        self.wfile.write(b"HTTP/1.3 200 OK\r\nContent-Length: 2\r\n\r\nok")
        self.hard_close()

    def r_fault_status_line_in_headers(self, rest):
        self._response_started = True
        self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Before: 1\r\nHTTP/1.1 500 Injected: yes\r\nX-After: 2\r\n"
                         b"Content-Length: 2\r\n\r\nok")
        self.hard_close()

    def r_fault_interim_then_final(self, rest):
        self._response_started = True
        self.wfile.write(b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
                         b"HTTP/1.1 201 Created\r\nX-Final: 1\r\nContent-Length: 2\r\n\r\nok")
        self.hard_close()


EXACT_ROUTES = {
    "/fault/truncated": FaultRoutes.r_fault_truncated,
    "/fault/close-before-response": FaultRoutes.r_fault_close,
    "/fault/partial-headers": FaultRoutes.r_fault_partial_headers,
    "/fault/partial-status": FaultRoutes.r_fault_partial_status,
    "/fault/partial-headers-length": FaultRoutes.r_fault_partial_headers_length,
    "/fault/garbage": FaultRoutes.r_fault_garbage,
    "/fault/chunked-truncated": FaultRoutes.r_fault_chunked_truncated,
    "/fault/read-then-close": FaultRoutes.r_fault_read_then_close,
    "/fault/read-then-close/count": FaultRoutes.r_fault_read_then_close_count,
    "/fault/close-on-revalidation": FaultRoutes.r_fault_close_on_revalidation,
    "/fault/four-digit-status": FaultRoutes.r_fault_four_digit_status,
    "/fault/status-line-in-headers": FaultRoutes.r_fault_status_line_in_headers,
    "/fault/interim-then-final": FaultRoutes.r_fault_interim_then_final,
    "/fault/unsupported-version": FaultRoutes.r_fault_unsupported_version,
}

PREFIX_ROUTES = []
