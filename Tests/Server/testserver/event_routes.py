"""Server-Sent Events (text/event-stream) for the event-stream tests: a stream that ends after a
few events (cleanly or cut mid-event) and continues from Last-Event-ID on the next connection,
connections that fail after the first, and heads that are not an event stream. Every route
records its requests under `?key=` with their Last-Event-ID, Accept and Cache-Control, whether
an X-Injected header arrived, and when (`/events/log?key=`)."""

import time

from .common import STATE_LOCK, first, jdump

EVENTS_LOG = {}  # key -> [the headers of each request that matter to an event stream]


class EventRoutes:

    def _events_record(self):
        """Records this request under its key; how many requests the key had before it."""
        key = first(self.qs, "key", "default")
        with STATE_LOCK:
            seen = EVENTS_LOG.setdefault(key, [])
            seen.append({"lastEventID": self.headers.get("Last-Event-ID", ""),
                         "accept": self.headers.get("Accept", ""),
                         "cacheControl": self.headers.get("Cache-Control", ""),
                         "injected": self.headers.get("X-Injected") is not None,
                         "time": time.monotonic()})
            return len(seen) - 1

    def _events_int(self, name, default):
        try:
            return int(first(self.qs, name, str(default)))
        except ValueError:
            return default

    def r_events_stream(self, rest):
        """/events/stream?key=K&per=2&total=6&end=clean|cut&retry=50&fail_after=0: up to `per`
        events a connection (`id: n`, `data: event n`), numbered on from the Last-Event-ID sent,
        after a `retry:` field; then the connection ends: `clean` (the chunked body's end) or
        `cut` (half an event, then the socket closed). Once `total` events were sent the answer
        is 204. With fail_after=N > 0, every request after the first N is closed unanswered."""
        previous = self._events_record()
        fail_after = self._events_int("fail_after", 0)
        if 0 < fail_after <= previous:
            self._response_started = True
            return self.hard_close()
        try:
            sent = int(self.headers.get("Last-Event-ID", "0"))
        except ValueError:
            sent = 0
        per, total = self._events_int("per", 2), self._events_int("total", 6)
        if sent >= total:
            return self.send(204)
        self.close_connection = True
        self.start_stream(200, [("Cache-Control", "no-cache")], "text/event-stream; charset=utf-8", chunked=True)
        self._events_chunk(b": hello\n\nretry: %d\n\n" % self._events_int("retry", 50))
        for number in range(sent + 1, min(sent + per, total) + 1):
            self._events_chunk(b"id: %d\ndata: event %d\n\n" % (number, number))
        if first(self.qs, "end", "clean") == "cut":
            self._events_chunk(b"id: 999\ndata: never dispatched")
            return self.hard_close()
        self.wfile.write(b"0\r\n\r\n")

    def _events_chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def r_events_answer(self, rest):
        """/events/answer?key=K&status=200&type=text/event-stream: one event (`data: x`) with
        that status and Content-Type, then the end of the body."""
        self._events_record()
        self.close_connection = True
        self.send(self._events_int("status", 200), b"data: x\n\n", first(self.qs, "type", "text/event-stream"))

    def r_events_slow(self, rest):
        """/events/slow?key=K: one event, then a comment every 0.2 s for up to 30 s (a stream
        that stays open until the client goes away)."""
        self._events_record()
        self.close_connection = True
        self.start_stream(200, [], "text/event-stream", chunked=True)
        self._events_chunk(b"id: 1\ndata: first\n\n")
        for _ in range(150):
            time.sleep(0.2)
            self._events_chunk(b": still here\n")
        self.wfile.write(b"0\r\n\r\n")

    def r_events_retry_zero(self, rest):
        """/events/retry-zero?key=K: `retry: 0` and no event, then the body's clean end (a server
        that would be reconnected at once, forever, without a floor and back-off)."""
        self._events_record()
        self.close_connection = True
        self.send(200, b": nothing to say\nretry: 0\n\n", "text/event-stream")

    # The second event's id: 8 MB (more than libcurl puts in a request header), or one holding
    # a vertical tab (which some header parsers read as a line break).
    HOSTILE_IDS = {"long": b"x" * (8 << 20), "control": b"2\x0bX-Injected: yes"}

    def r_events_hostile_id(self, rest):
        """/events/hostile-id?key=K&kind=long|control: `id: 1` with event `a`, then an event `b`
        whose id is HOSTILE_IDS[kind], then the end; the next connection gets 204."""
        if self._events_record() > 0:
            return self.send(204)
        hostile = self.HOSTILE_IDS.get(first(self.qs, "kind", "control"), b"")
        self.close_connection = True
        self.send(200, b"retry: 1\nid: 1\ndata: a\n\nid: " + hostile + b"\ndata: b\n\n", "text/event-stream")

    def r_events_log(self, rest):
        """/events/log?key=K: {"requests": [{"lastEventID", "accept", "cacheControl", "injected",
        "time"}]}: those headers of each request ("" when absent), whether it carried X-Injected,
        and when it arrived (monotonic seconds)."""
        key = first(self.qs, "key", "default")
        with STATE_LOCK:
            seen = list(EVENTS_LOG.get(key, []))
        self.send(200, jdump({"requests": seen}))


EXACT_ROUTES = {
    "/events/stream": EventRoutes.r_events_stream,
    "/events/answer": EventRoutes.r_events_answer,
    "/events/slow": EventRoutes.r_events_slow,
    "/events/log": EventRoutes.r_events_log,
    "/events/retry-zero": EventRoutes.r_events_retry_zero,
    "/events/hostile-id": EventRoutes.r_events_hostile_id,
}

PREFIX_ROUTES = []
