"""A cacheable resource whose caching headers come from the query, for the HTTP cache tests."""

import email.utils
import time
from urllib.parse import unquote

from .common import LAST_MODIFIED, STATE_LOCK, first

CACHE_KEYS = {}       # /cache/<key>: key -> {"count", "version", "requests"}


class CacheRoutes:
    """Counts requests per key and answers conditional requests with 304."""

    def r_cache(self, rest):
        """A cacheable resource whose caching headers come from the query; counts requests per key."""
        key = unquote(rest) or "default"
        with STATE_LOCK:
            state = CACHE_KEYS.setdefault(key, {"count": 0, "version": 1, "requests": []})
            state["count"] += 1
            served, version = state["count"], state["version"]
            state["requests"].append({
                "method": self.command,
                "if_none_match": self.headers.get("If-None-Match"),
                "if_modified_since": self.headers.get("If-Modified-Since"),
                "authorization": self.headers.get("Authorization"),
            })
        headers = self._cache_headers(key, version, served)
        if self.command in ("GET", "HEAD") and self._cache_not_modified(headers):
            return self.send(304, b"", None, headers)
        try:
            status = int(self.headers.get("X-Status") or first(self.qs, "status", "200"))
            size = max(0, min(int(first(self.qs, "size", "0")), 16 * 1024 * 1024))
        except ValueError:
            return self.send_error_json(400, "bad_request", "bad status or size")
        varied = [n.strip() for n in (first(self.qs, "vary") or "").split(",") if n.strip() and n.strip() != "*"]
        if first(self.qs, "quiet") is not None:
            varied = []  # the body echoes no request header
        body = {"key": key, "version": version, "served": served, "method": self.command,
                "vary": {n: self.headers.get(n) for n in varied}, "pad": "x" * size}
        self.send_json(body, status, headers)

    def _cache_headers(self, key, version, served):
        headers = [("X-Served", str(served)), ("X-Version", str(version))]
        value = first(self.qs, "cc")
        if value is not None:
            headers.append(("Cache-Control", value))
        etag = first(self.qs, "etag")
        if etag is not None:
            tag = '"%s-v%d"' % (key, version)
            headers.append(("ETag", "W/" + tag if etag == "weak" else tag))
        if first(self.qs, "lm") is not None:
            base = email.utils.parsedate_to_datetime(LAST_MODIFIED).timestamp()
            headers.append(("Last-Modified", email.utils.formatdate(base + 86400 * version, usegmt=True)))
        expires_in = first(self.qs, "expires_in")
        if expires_in is not None:
            headers.append(("Expires", email.utils.formatdate(time.time() + int(expires_in), usegmt=True)))
        for param, name in (("expires", "Expires"), ("age", "Age"), ("vary", "Vary"), ("location", "Location"),
                            ("content_location", "Content-Location"), ("set_cookie", "Set-Cookie")):
            value = first(self.qs, param)
            if value is not None:
                headers.append((name, value))
        return headers

    def _cache_not_modified(self, headers):
        current = dict(headers)
        tags = self.headers.get("If-None-Match")
        if tags is not None:
            tag = current.get("ETag")
            if tag is None:
                return False
            opaque = tag[2:] if tag.startswith("W/") else tag
            offered = [t.strip()[2:] if t.strip().startswith("W/") else t.strip() for t in tags.split(",")]
            return "*" in offered or opaque in offered
        since = self.headers.get("If-Modified-Since")
        modified = current.get("Last-Modified")
        if since is None or modified is None:
            return False
        try:
            return email.utils.parsedate_to_datetime(modified) <= email.utils.parsedate_to_datetime(since)
        except (TypeError, ValueError):
            return False

    def r_cache_count(self, rest):
        key = first(self.qs, "key", "default")
        with STATE_LOCK:
            state = CACHE_KEYS.get(key, {"count": 0, "version": 1, "requests": []})
            self.send_json({"count": state["count"], "version": state["version"], "requests": state["requests"]})

    def r_cache_bump(self, rest):
        key = first(self.qs, "key", "default")
        with STATE_LOCK:
            state = CACHE_KEYS.setdefault(key, {"count": 0, "version": 1, "requests": []})
            state["version"] += 1
            version = state["version"]
        self.send_json({"version": version})


EXACT_ROUTES = {
    "/cache-count": CacheRoutes.r_cache_count,
    "/cache-bump": CacheRoutes.r_cache_bump,
}

PREFIX_ROUTES = [
    ("/cache/", CacheRoutes.r_cache),
]
