"""Echo, fixed bodies, status codes, redirects, slow answers and the admin counters."""

import base64
import json
import ssl
import time
from urllib.parse import parse_qsl

from .common import LISTENERS, MAX_DELAY, all_values, first, jdump, media_type, multidict
from .request_parsing import parse_multipart


class EchoRoutes:
    """Routes any test may use; mixed into Handler by routes.py."""

    # ---- echo --------------------------------------------------------------

    def peer_subject(self):
        if self._peer_subject is not False:
            return self._peer_subject
        subject = None
        conn = self.connection
        if isinstance(conn, ssl.SSLSocket):
            try:
                der = conn.getpeercert(binary_form=True)
            except Exception:
                der = None
            if der:
                try:
                    from cryptography import x509
                    subject = x509.load_der_x509_certificate(der).subject.rfc4514_string()
                except Exception:
                    cert = conn.getpeercert() or {}
                    subject = ",".join("%s=%s" % kv for rdn in cert.get("subject", ()) for kv in rdn)
        self._peer_subject = subject
        return subject

    def echo_payload(self):
        body = self.body
        header_pairs = [[k, v] for k, v in self.headers.items()]
        hdict = {}
        for k, v in header_pairs:
            lk = k.lower()
            hdict[lk] = hdict[lk] + ", " + v if lk in hdict else v
        try:
            body_text = body.decode("utf-8")
        except UnicodeDecodeError:
            body_text = None
        parsed_json = None
        if body:
            try:
                parsed_json = json.loads(body)
            except (ValueError, RecursionError):
                parsed_json = None
        ctype = self.headers.get("Content-Type", "")
        mtype = media_type(ctype)
        form = None
        if mtype == "application/x-www-form-urlencoded":
            form = multidict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
        multipart = None
        if mtype == "multipart/form-data":
            multipart = parse_multipart(body, ctype)
        return {
            "method": self.command,
            "path": self.req_path,
            "query": self.query,
            "args": multidict(self.qs),
            "headers": header_pairs,
            "headers_dict": hdict,
            "body_base64": base64.b64encode(body).decode("ascii"),
            "body_text": body_text,
            "json": parsed_json,
            "form": form,
            "multipart": multipart,
            "connection_id": self.connection_id,
            "request_count": self.request_count,
            "client_cert_subject": self.peer_subject(),
            "listener": self.server.name,
        }

    def r_echo(self, rest):
        self.send_json(self.echo_payload())

    # ---- simple bodies ----------------------------------------------------

    def r_status(self, rest):
        try:
            code = int(rest.strip("/"))
        except ValueError:
            return self.send_error_json(400, "bad_status", "bad status code %r" % rest)
        if not 100 <= code <= 999:
            return self.send_error_json(400, "bad_status", "bad status code %r" % rest)
        qs = self.qs
        headers = []
        for h in all_values(qs, "header"):
            name, sep, value = h.partition(":")
            if sep and name.strip():
                headers.append((name.strip(), value.strip()))
        mode = first(qs, "body", "json")
        if mode == "none":
            self.send(code, b"", None, headers)
        elif mode == "text":
            self.send(code, ("status %d" % code).encode(), "text/plain; charset=utf-8", headers)
        else:
            obj = {"code": first(qs, "code", "E%d" % code),
                   "message": first(qs, "message", "status %d" % code)}
            self.send(code, jdump(obj), "application/json", headers)

    def r_json(self, rest):
        self.send_json({"slideshow": {"title": "Sample", "slides": [1, 2, 3]}, "ok": True})

    def r_json_array(self, rest):
        self.send_json([1, 2, 3])

    def r_json_invalid(self, rest):
        self.send(200, b'{"unterminated": ', "application/json")

    def r_nonutf8(self, rest):
        self.send(200, b"\xff\xfe\xfa", "text/plain")

    def r_empty(self, rest):
        self.send(200, b"", None)

    def r_headers_multi(self, rest):
        self.send(200, b"{}", "application/json", [
            ("Set-Cookie", "a=1; Path=/"),
            ("Set-Cookie", "b=2; Path=/"),
            ("X-Multi", "one"),
            ("X-Multi", "two"),
        ])

    def r_connection_id(self, rest):
        self.send_json({"connection_id": self.connection_id})

    # ---- redirects ------------------------------------------------------

    def redirect(self, location, status=302):
        body = ("Redirecting to %s\n" % location).encode("utf-8")
        self.send(status, body, "text/plain; charset=utf-8", [("Location", location)])

    def r_redirect_to(self, rest):
        url = first(self.qs, "url")
        if url is None:
            return self.send_error_json(400, "bad_request", "missing url")
        try:
            status = int(first(self.qs, "status_code", "302"))
        except ValueError:
            return self.send_error_json(400, "bad_request", "bad status_code")
        self.redirect(url, status)

    def r_redirect_n(self, rest):
        try:
            n = int(rest.strip("/"))
        except ValueError:
            return self.send_error_json(400, "bad_request", "bad redirect count")
        if n <= 0:
            return self.r_echo(rest)
        self.redirect("/redirect/%d" % (n - 1))

    def r_redirect_loop(self, rest):
        self.redirect("/redirect-loop")

    # ---- slow -----------------------------------------------------------

    def r_delay(self, rest):
        try:
            secs = float(rest.strip("/"))
        except ValueError:
            return self.send_error_json(400, "bad_request", "bad delay")
        if secs > 0:
            time.sleep(min(secs, MAX_DELAY))
        self.r_echo(rest)

    def r_drip(self, rest):
        try:
            n = int(first(self.qs, "bytes", "10"))
            delay = float(first(self.qs, "delay", "0.1"))
        except ValueError:
            return self.send_error_json(400, "bad_request", "bad drip params")
        delay = min(max(delay, 0.0), MAX_DELAY)
        self.start_stream(200, content_type="application/octet-stream", length=n)
        if self.command == "HEAD":
            return
        w = self.wfile.write
        for _ in range(n):
            if delay:
                time.sleep(delay)
            w(b"*")

    # ---- admin ----------------------------------------------------------

    def r_admin_count(self, rest):
        self.send_json({"count": self.server.get_count()})

    def r_admin_reset(self, rest):
        self.server.reset_count()
        self.send_json({"count": 0})

    def r_admin_counts(self, rest):
        self.send_json({name: srv.get_count() for name, srv in LISTENERS.items()})

    def r_admin_reset_all(self, rest):
        for srv in LISTENERS.values():
            srv.reset_count()
        self.send_json({name: 0 for name in LISTENERS})


EXACT_ROUTES = {
    "/anything": EchoRoutes.r_echo,
    "/get": EchoRoutes.r_echo,
    "/post": EchoRoutes.r_echo,
    "/put": EchoRoutes.r_echo,
    "/patch": EchoRoutes.r_echo,
    "/delete": EchoRoutes.r_echo,
    "/salary": EchoRoutes.r_echo,
    "/json": EchoRoutes.r_json,
    "/json-array": EchoRoutes.r_json_array,
    "/json-invalid": EchoRoutes.r_json_invalid,
    "/nonutf8": EchoRoutes.r_nonutf8,
    "/empty": EchoRoutes.r_empty,
    "/headers/multi": EchoRoutes.r_headers_multi,
    "/redirect-to": EchoRoutes.r_redirect_to,
    "/redirect-loop": EchoRoutes.r_redirect_loop,
    "/drip": EchoRoutes.r_drip,
    "/connection-id": EchoRoutes.r_connection_id,
    "/_admin/count": EchoRoutes.r_admin_count,
    "/_admin/reset": EchoRoutes.r_admin_reset,
    "/_admin/counts": EchoRoutes.r_admin_counts,
    "/_admin/reset-all": EchoRoutes.r_admin_reset_all,
}

PREFIX_ROUTES = [
    ("/anything/", EchoRoutes.r_echo),
    ("/status/", EchoRoutes.r_status),
    ("/redirect/", EchoRoutes.r_redirect_n),
    ("/delay/", EchoRoutes.r_delay),
]
