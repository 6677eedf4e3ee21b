"""Routes written for one feature's tests: the stall time-out (config), log redaction (leaf), a
chain of slow redirects (the redirect hop tests) and an origin in an outage (resilience)."""

import time

from .common import STATE_LOCK, first

HOPTESTS_SLOW_HOPS = {}  # /hoptests/slow-redirect: key -> requests seen
OUTAGES = {}  # /resilience/outage: key -> {"start": monotonic time, "seen": [(seconds, method, key, status)]}


class FeatureRoutes:
    """One section a feature; a new feature's routes go at the end, with their table entries."""

    # ---- config (stall time-out) ------------------------------------------

    def r_stall(self, rest):
        """Headers announcing 10 bytes, one byte, then silence for `seconds` (default 10)."""
        try:
            secs = float(first(self.qs, "seconds", "10"))
        except ValueError:
            return self.send_error_json(400, "bad_request", "bad seconds")
        self.start_stream(200, content_type="application/octet-stream", length=10)
        self.wfile.write(b"*")
        self.wfile.flush()
        time.sleep(min(max(secs, 0.0), 60.0))
        self.hard_close()

    # ---- leaf: secrets for the redaction tests ----------------------------

    def r_leaf_secrets(self, rest):
        """Answers with secrets in every place a log shows (header values, URLs inside them,
        JSON fields) and never echoes the request. `?status=` picks the status (default 200)."""
        try:
            status = int(first(self.qs, "status", "200"))
        except ValueError:
            status = 200
        headers = [
            ("Location", "/next?token=LEAF-LOCATION-TOKEN&page=2"),
            ("Content-Location", "https://LEAF-CL-USER:LEAF-CL-PASS@example.test/doc?X-Amz-Signature=LEAF-CL-SIG"),
            ("Link", "<https://cdn.example.test/a?sig=LEAF-LINK-SIG>; rel=next, </b?auth=LEAF-LINK-AUTH>; rel=prev"),
            ("Refresh", "0; url=/r?code=LEAF-REFRESH-CODE"),
            ("Set-Cookie", "sid=LEAF-SET-COOKIE; Path=/"),
            ("X-Amz-Security-Token", "LEAF-RESPONSE-AMZ"),
            ("X-Api-Key", "LEAF-RESPONSE-KEY"),
        ]
        body = {
            "access_token": "LEAF-BODY-ACCESS", "apiKey": "LEAF-BODY-APIKEY", "clientSecret": "LEAF-BODY-CLIENT",
            "nested": [{"id_token": "LEAF-BODY-ID", "private_key": "LEAF-BODY-PRIVATE", "passwd": "LEAF-BODY-PASSWD"}],
            "next": "https://x.example.test/?sig=LEAF-BODY-SIG&page=3", "ok": True,
        }
        self.send_json(body, status, headers)

    # ---- hoptests helper: a chain of slow redirects ------------------------

    def r_hoptests_slow_redirect(self, rest):
        """/hoptests/slow-redirect/<n>?delay=S&key=K: counts the request under K, sleeps S seconds
        (at most 5), then redirects (302) to /hoptests/slow-redirect/<n-1> with the same query;
        n=0 echoes at once. n is at most 20."""
        try:
            n = int(rest.strip("/"))
            delay = float(first(self.qs, "delay", "1"))
        except ValueError:
            return self.send_error_json(400, "bad_request", "bad hop count or delay")
        if not 0 <= n <= 20:
            return self.send_error_json(400, "bad_request", "hop count must be 0...20")
        key = first(self.qs, "key", "default")
        with STATE_LOCK:
            HOPTESTS_SLOW_HOPS[key] = HOPTESTS_SLOW_HOPS.get(key, 0) + 1
        if n == 0:
            return self.r_echo(rest)
        time.sleep(min(max(delay, 0.0), 5.0))
        self.redirect("/hoptests/slow-redirect/%d?%s" % (n - 1, self.query))

    def r_hoptests_slow_redirect_count(self, rest):
        """/hoptests/slow-redirect-count?key=K: {"count"}: requests seen under K."""
        key = first(self.qs, "key", "default")
        with STATE_LOCK:
            count = HOPTESTS_SLOW_HOPS.get(key, 0)
        self.send_json({"count": count})


    # ---- resilience: an origin in an outage --------------------------------

    def r_resilience_outage(self, rest):
        """/resilience/outage?key=K&fail=N&down=S&status=503&retry_after=R: fails (`status`,
        with `Retry-After: R` when given) the first N requests under K, or every request within S
        seconds of K's first one; then echoes. Logs each request's time, method and
        `Idempotency-Key` under K."""
        key = first(self.qs, "key", "default")
        try:
            fail = int(first(self.qs, "fail", "0"))
            down = float(first(self.qs, "down", "0"))
            status = int(first(self.qs, "status", "503"))
        except ValueError:
            return self.send_error_json(400, "bad_request", "bad outage params")
        now = time.monotonic()
        with STATE_LOCK:
            outage = OUTAGES.setdefault(key, {"start": now, "seen": []})
            elapsed = now - outage["start"]
            failing = len(outage["seen"]) < fail or elapsed < down
            outage["seen"].append((elapsed, self.command, self.headers.get("Idempotency-Key"),
                                   status if failing else 200))
        if failing:
            retry_after = first(self.qs, "retry_after")
            headers = [("Retry-After", retry_after)] if retry_after is not None else []
            return self.send_error_json(status, "outage", "the origin is down", headers)
        self.send_json({"ok": True, "request": len(outage["seen"])})

    def r_resilience_log(self, rest):
        """/resilience/log?key=K: {"count", "times" (seconds since K's first request), "methods",
        "keys" (Idempotency-Key values, null when absent), "statuses"}."""
        key = first(self.qs, "key", "default")
        with STATE_LOCK:
            seen = list(OUTAGES.get(key, {"seen": []})["seen"])
        self.send_json({"count": len(seen), "times": [s[0] for s in seen], "methods": [s[1] for s in seen],
                        "keys": [s[2] for s in seen], "statuses": [s[3] for s in seen]})


EXACT_ROUTES = {
    "/stall": FeatureRoutes.r_stall,
    "/leaf/secrets": FeatureRoutes.r_leaf_secrets,
    "/hoptests/slow-redirect-count": FeatureRoutes.r_hoptests_slow_redirect_count,
    "/resilience/outage": FeatureRoutes.r_resilience_outage,
    "/resilience/log": FeatureRoutes.r_resilience_log,
}

PREFIX_ROUTES = [
    ("/hoptests/slow-redirect/", FeatureRoutes.r_hoptests_slow_redirect),
]
