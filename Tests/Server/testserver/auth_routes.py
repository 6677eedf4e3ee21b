"""Sessions and cookies, token and basic authentication, and the flaky route retries are tested with."""

import base64
import secrets
import time
from urllib.parse import unquote

from .common import STATE_LOCK, all_values, first
from .request_parsing import parse_cookie_header

SESSIONS = set()
FLAKY = {}            # key -> requests seen
AUTH = {"token": None, "issued": 0}


class AuthRoutes:
    """Routes with state kept across requests (under common.STATE_LOCK)."""

    # ---- sessions / cookies ---------------------------------------------

    def request_cookies(self):
        return parse_cookie_header(self.headers.get_all("Cookie") or [])

    def r_session(self, rest):
        sid = secrets.token_hex(16)
        with STATE_LOCK:
            SESSIONS.add(sid)
        self.send_json({"session_id": sid},
                       headers=[("Set-Cookie", "SESSION_ID=%s; Path=/; HttpOnly" % sid)])

    def r_user(self, rest):
        sid = self.request_cookies().get("SESSION_ID")
        with STATE_LOCK:
            valid = sid is not None and sid in SESSIONS
        if not valid:
            return self.send_error_json(401, "unauthorized", "no session")
        self.send_json({
            "users": [{"first_name": first(self.qs, "first_name"),
                       "last_name": first(self.qs, "last_name"),
                       "id": 1}],
            "user_agent": self.headers.get("User-Agent"),
        })

    def r_cookies(self, rest):
        self.send_json({"cookies": self.request_cookies()})

    def r_cookies_set(self, rest):
        headers = [("Set-Cookie", "%s=%s; Path=/" % (k, v)) for k, v in self.qs]
        self.send(200, b"{}", "application/json", headers)

    def r_cookies_raw(self, rest):
        headers = [("Set-Cookie", v) for v in all_values(self.qs, "h")]
        self.send(200, b"{}", "application/json", headers)

    # ---- retry helpers --------------------------------------------------

    def r_flaky(self, rest):
        key = first(self.qs, "key", "default")
        try:
            fail = int(first(self.qs, "fail", "1"))
            status = int(first(self.qs, "status", "503"))
        except ValueError:
            return self.send_error_json(400, "bad_request", "bad flaky params")
        retry_after = first(self.qs, "retry_after")
        with STATE_LOCK:
            count = FLAKY.get(key, 0) + 1
            FLAKY[key] = count
        if count <= fail:
            headers = [("Retry-After", retry_after)] if retry_after is not None else []
            return self.send_json({"code": "flaky", "message": "attempt %d of %d fails" % (count, fail),
                                   "attempts": count}, status, headers)
        self.send_json({"attempts": count})

    def r_flaky_count(self, rest):
        key = first(self.qs, "key", "default")
        with STATE_LOCK:
            count = FLAKY.get(key, 0)
        self.send_json({"count": count})

    def r_flaky_reset(self, rest):
        key = first(self.qs, "key")
        with STATE_LOCK:
            if key is None:
                FLAKY.clear()
            else:
                FLAKY.pop(key, None)
        self.send_json({"ok": True})

    # ---- token auth -----------------------------------------------------

    def r_auth_token(self, rest):
        time.sleep(0.05)  # make concurrent refreshes overlap
        token = secrets.token_hex(16)
        with STATE_LOCK:
            AUTH["issued"] += 1
            AUTH["token"] = token
        self.send_json({"token": token})

    def r_auth_protected(self, rest):
        authz = (self.headers.get("Authorization") or "").strip()
        with STATE_LOCK:
            token = AUTH["token"]
        if token is not None and authz == "Bearer " + token:
            return self.send_json({"ok": True, "token": token})
        self.send_error_json(401, "token_expired", "bad token")

    def r_auth_expire(self, rest):
        with STATE_LOCK:
            AUTH["token"] = None
        self.send_json({"ok": True})

    def r_auth_count(self, rest):
        with STATE_LOCK:
            issued = AUTH["issued"]
        self.send_json({"issued": issued})

    def r_auth_reset(self, rest):
        with STATE_LOCK:
            AUTH["issued"] = 0
            AUTH["token"] = None
        self.send_json({"ok": True})

    # ---- basic auth -----------------------------------------------------

    def r_basic_auth(self, rest):
        user, sep, password = rest.partition("/")
        user = unquote(user)
        password = unquote(password)
        authz = (self.headers.get("Authorization") or "").strip()
        ok = False
        if sep and authz[:6].lower() == "basic ":
            try:
                decoded = base64.b64decode(authz[6:].strip(), validate=True).decode("utf-8")
                ok = decoded == "%s:%s" % (user, password)
            except Exception:
                ok = False
        if ok:
            return self.send_json({"authenticated": True, "user": user})
        self.send_json({"code": "unauthorized", "message": "bad credentials", "authenticated": False},
                       401, [("WWW-Authenticate", 'Basic realm="test"')])


EXACT_ROUTES = {
    "/session": AuthRoutes.r_session,
    "/user": AuthRoutes.r_user,
    "/cookies": AuthRoutes.r_cookies,
    "/cookies/set": AuthRoutes.r_cookies_set,
    "/cookies/raw": AuthRoutes.r_cookies_raw,
    "/flaky": AuthRoutes.r_flaky,
    "/flaky/count": AuthRoutes.r_flaky_count,
    "/flaky/reset": AuthRoutes.r_flaky_reset,
    "/auth/token": AuthRoutes.r_auth_token,
    "/auth/protected": AuthRoutes.r_auth_protected,
    "/auth/expire": AuthRoutes.r_auth_expire,
    "/auth/count": AuthRoutes.r_auth_count,
    "/auth/reset": AuthRoutes.r_auth_reset,
}

PREFIX_ROUTES = [
    ("/basic-auth/", AuthRoutes.r_basic_auth),
]
