#!/usr/bin/env python3
"""Local HTTP/HTTPS test server for the HTTPTransport test suite.

Usage:
    python3 Tests/Server/server.py [--certs DIR] [--ignore-stdin]

Every listener binds 127.0.0.1 on an ephemeral port.  Once all listeners are
up, exactly one line of JSON is printed to stdout, e.g.

    {"http": 41234, "https": 41235, "https_expired": 41236,
     "https_otherhost": 41237, "https_selfsigned": 41238, "https_mtls": 41239}

(the https_* listeners exist only with --certs DIR, DIR being produced by
make_certs.py).  The server exits when stdin reaches EOF (the parent test
process closed the pipe or died), on SIGTERM and on SIGINT.  --ignore-stdin
disables the stdin watch (handy for running it by hand in the background).

Only the Python standard library is needed for plain HTTP; `cryptography` is
used (lazily) to render the mTLS client certificate subject.

See README.md next to this file for the list of routes.
"""

import argparse
import base64
import email.message
import email.utils
import gzip
import hashlib
import http
import itertools
import json
import os
import secrets
import signal
import socket
import socketserver
import ssl
import sys
import threading
import time
import traceback
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlsplit

VERBOSE = os.environ.get("TEST_SERVER_VERBOSE") == "1"

PIECE = 64 * 1024
HANDSHAKE_TIMEOUT = 10.0
CONNECTION_TIMEOUT = 600.0
MULTIPART_BUFFER_LIMIT = 64 * 1024 * 1024
MULTIPART_TEXT_LIMIT = 64 * 1024
MAX_DELAY = 300.0
LAST_MODIFIED = "Wed, 21 Oct 2015 07:28:00 GMT"
SERVER_NAME = "HTTPTransportTestServer/1.0"

# Errors that just mean "the peer went away / misbehaved at the transport
# level".  They are expected in timeout/cancellation tests and are only
# reported when TEST_SERVER_VERBOSE=1.
CLIENT_GONE_ERRORS = (ConnectionError, TimeoutError, socket.timeout, ssl.SSLError, EOFError)


class ClientGone(ConnectionError):
    """The client closed the connection while we were reading its request."""


class BadRequest(Exception):
    """Malformed request framing (e.g. bad chunk size)."""


# --------------------------------------------------------------------------
# Logging
# --------------------------------------------------------------------------

_log_lock = threading.Lock()


def log(msg):
    try:
        with _log_lock:
            sys.stderr.write("[test-server] %s\n" % msg)
            sys.stderr.flush()
    except Exception:
        pass


def log_exception(context):
    log("%s\n%s" % (context, traceback.format_exc().rstrip()))


# --------------------------------------------------------------------------
# Shared state
# --------------------------------------------------------------------------

_conn_ids = itertools.count(1)
_conn_id_lock = threading.Lock()


def next_connection_id():
    with _conn_id_lock:
        return next(_conn_ids)


LISTENERS = {}  # name -> server (insertion order = startup JSON order)

STATE_LOCK = threading.Lock()
SESSIONS = set()
FLAKY = {}            # key -> requests seen
RANGE_CUT_DONE = set()
AUTH = {"token": None, "issued": 0}
CACHE_KEYS = {}       # /cache/<key>: key -> {"count", "version", "requests"}
HOPTESTS_SLOW_HOPS = {}  # /hoptests/slow-redirect: key -> requests seen

# Deterministic byte pattern: byte i == i % 251.
_PATTERN_BLOCK = bytes(i % 251 for i in range(251)) * (PIECE // 251 + 2)
_PATTERN_VIEW = memoryview(_PATTERN_BLOCK)
_SHA_CACHE = {}
_SHA_LOCK = threading.Lock()


def pattern_pieces(offset, length):
    """Yield memoryviews covering pattern bytes [offset, offset+length)."""
    end = offset + length
    pos = offset
    while pos < end:
        n = min(PIECE, end - pos)
        start = pos % 251
        yield _PATTERN_VIEW[start:start + n]
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

# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def multidict(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            if isinstance(d[k], list):
                d[k].append(v)
            else:
                d[k] = [d[k], v]
        else:
            d[k] = v
    return d


def first(pairs, key, default=None):
    for k, v in pairs:
        if k == key:
            return v
    return default


def all_values(pairs, key):
    return [v for k, v in pairs if k == key]


def jdump(obj):
    return json.dumps(obj).encode("utf-8")


def reason_phrase(code):
    try:
        return http.HTTPStatus(code).phrase
    except ValueError:
        return "Unknown"


_date_cache = (0, "")


def http_date():
    global _date_cache
    now = int(time.time())
    cached = _date_cache
    if cached[0] != now:
        cached = (now, email.utils.formatdate(now, usegmt=True))
        _date_cache = cached
    return cached[1]


def clean_header_text(s):
    return str(s).replace("\r", " ").replace("\n", " ")


def encode_header_block(text):
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return text.encode("utf-8")


def media_type(content_type):
    return (content_type or "").split(";", 1)[0].strip().lower()


def header_param(value, param, header="content-type"):
    msg = email.message.Message()
    msg[header] = value
    got = msg.get_param(param, header=header)
    if got is None:
        return None
    return email.utils.collapse_rfc2231_value(got)


def parse_multipart(body, content_type):
    """Parse a multipart/form-data body. Returns a list of part dicts or None."""
    boundary = header_param(content_type, "boundary")
    if not boundary:
        return None
    delim = b"--" + boundary.encode("latin-1", "replace")
    parts = []
    pos = body.find(delim)
    if pos < 0:
        return parts
    pos += len(delim)
    n = len(body)
    while pos < n:
        if body.startswith(b"--", pos):
            break  # closing delimiter
        eol = body.find(b"\r\n", pos)
        if eol < 0:
            break
        pos = eol + 2
        if body.startswith(b"\r\n", pos):
            raw_headers = b""
            content_start = pos + 2
        else:
            hdr_end = body.find(b"\r\n\r\n", pos)
            if hdr_end < 0:
                break
            raw_headers = body[pos:hdr_end]
            content_start = hdr_end + 4
        nxt = body.find(b"\r\n" + delim, content_start)
        if nxt < 0:
            break
        content = body[content_start:nxt]
        pos = nxt + 2 + len(delim)

        headers = []
        for line in raw_headers.decode("utf-8", "replace").split("\r\n"):
            if ":" in line:
                name, _, value = line.partition(":")
                headers.append([name.strip(), value.strip()])
        disposition = None
        ctype = None
        for name, value in headers:
            lname = name.lower()
            if lname == "content-disposition":
                disposition = value
            elif lname == "content-type":
                ctype = value
        pname = fname = None
        if disposition:
            msg = email.message.Message()
            msg["Content-Disposition"] = disposition
            pname = msg.get_param("name", header="content-disposition")
            if pname is not None:
                pname = email.utils.collapse_rfc2231_value(pname)
            fname = msg.get_filename()
        text = None
        if len(content) <= MULTIPART_TEXT_LIMIT:
            try:
                text = content.decode("utf-8")
            except UnicodeDecodeError:
                text = None
        parts.append({
            "name": pname,
            "filename": fname,
            "content_type": ctype,
            "size": len(content),
            "sha256": hashlib.sha256(content).hexdigest(),
            "text": text,
            "headers": headers,
        })
    return parts


def parse_cookie_header(values):
    cookies = {}
    for header in values:
        for item in header.split(";"):
            item = item.strip()
            if not item:
                continue
            name, sep, value = item.partition("=")
            if not sep:
                continue
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            cookies[name.strip()] = value
    return cookies


def parse_range(spec, n):
    """Return (start, end) inclusive, 'unsatisfiable', or None (ignore header)."""
    spec = spec.strip()
    if not spec.lower().startswith("bytes="):
        return None
    spec = spec[6:].strip()
    if "," in spec or "-" not in spec:
        return None
    a, _, b = spec.partition("-")
    a = a.strip()
    b = b.strip()
    try:
        if a == "":
            if b == "":
                return None
            k = int(b)
            if k <= 0 or n == 0:
                return "unsatisfiable"
            return max(0, n - k), n - 1
        start = int(a)
        end = int(b) if b else None
    except ValueError:
        return None
    if start < 0 or (end is not None and end < start):
        return None
    if start >= n:
        return "unsatisfiable"
    return start, n - 1 if end is None else min(end, n - 1)


def accepts_gzip(value):
    for item in (value or "").split(","):
        token, _, params = item.partition(";")
        if token.strip().lower() != "gzip":
            continue
        q = 1.0
        for p in params.split(";"):
            k, _, v = p.partition("=")
            if k.strip().lower() == "q":
                try:
                    q = float(v.strip())
                except ValueError:
                    q = 1.0
        return q > 0
    return False


# --------------------------------------------------------------------------
# Request handler
# --------------------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = SERVER_NAME
    sys_version = ""
    timeout = CONNECTION_TIMEOUT
    disable_nagle_algorithm = True

    # ---- plumbing -------------------------------------------------------

    def __getattr__(self, name):
        # Route every method (GET, POST, ..., TRACE, custom) to _dispatch.
        if name.startswith("do_"):
            return self._dispatch
        raise AttributeError(name)

    def log_message(self, format, *args):
        if VERBOSE:
            log("%s %s - %s" % (self.server.name, self.address_string(), format % args))

    def setup(self):
        super().setup()
        self.connection_id = self.client_address[2] if len(self.client_address) > 2 else 0
        self._peer_subject = False  # not computed yet

    def handle(self):
        try:
            super().handle()
        except CLIENT_GONE_ERRORS as e:
            if VERBOSE:
                log("%s conn %s: client gone: %r" % (self.server.name, self.connection_id, e))
        except Exception:
            log_exception("%s conn %s: unhandled error" % (self.server.name, self.connection_id))

    def finish(self):
        try:
            super().finish()
        except Exception:
            pass

    # ---- request body ---------------------------------------------------

    def _iter_body(self, piece=PIECE):
        self._body_started = True
        te = self.headers.get("Transfer-Encoding", "")
        if "chunked" in te.lower():
            rfile = self.rfile
            while True:
                line = rfile.readline(65537)
                if not line:
                    raise ClientGone("EOF in chunk size")
                size_str = line.split(b";", 1)[0].strip()
                try:
                    size = int(size_str, 16)
                except ValueError:
                    raise BadRequest("bad chunk size %r" % line[:40])
                if size < 0:
                    raise BadRequest("negative chunk size")
                if size == 0:
                    while True:  # trailers
                        t = rfile.readline(65537)
                        if not t:
                            raise ClientGone("EOF in trailers")
                        if t in (b"\r\n", b"\n"):
                            break
                    break
                remaining = size
                while remaining:
                    data = rfile.read(min(piece, remaining))
                    if not data:
                        raise ClientGone("EOF in chunk data")
                    remaining -= len(data)
                    yield data
                crlf = rfile.readline(65537)
                if not crlf:
                    raise ClientGone("EOF after chunk")
                if crlf.strip():
                    raise BadRequest("missing CRLF after chunk")
            self._body_done = True
            return
        cl = self.headers.get("Content-Length")
        if cl is not None:
            try:
                remaining = int(cl.strip())
            except ValueError:
                raise BadRequest("bad Content-Length")
            if remaining < 0:
                raise BadRequest("negative Content-Length")
            rfile = self.rfile
            while remaining > 0:
                data = rfile.read(min(piece, remaining))
                if not data:
                    raise ClientGone("EOF in body")
                remaining -= len(data)
                yield data
        self._body_done = True

    def _read_body(self):
        chunks = list(self._iter_body())
        if not chunks:
            return b""
        if len(chunks) == 1:
            return chunks[0]
        return b"".join(chunks)

    # ---- responses ------------------------------------------------------

    def _header_block(self, status, headers, content_type=None, length=None, chunked=False):
        lines = ["HTTP/1.1 %d %s\r\n" % (status, reason_phrase(status))]
        lines.append("Date: %s\r\nServer: %s\r\n" % (http_date(), SERVER_NAME))
        if content_type:
            lines.append("Content-Type: %s\r\n" % content_type)
        if length is not None:
            lines.append("Content-Length: %d\r\n" % length)
        if chunked:
            lines.append("Transfer-Encoding: chunked\r\n")
        for name, value in headers:
            lines.append("%s: %s\r\n" % (clean_header_text(name), clean_header_text(value)))
        if self.close_connection:
            lines.append("Connection: close\r\n")
        lines.append("\r\n")
        return encode_header_block("".join(lines))

    def send(self, status, body=b"", content_type="application/json", headers=()):
        """Send a complete response in a single write."""
        if status in (204, 304) or 100 <= status < 200:
            data = self._header_block(status, headers)
        else:
            block = self._header_block(status, headers, content_type if body else None, len(body))
            data = block if self.command == "HEAD" or not body else block + body
        self._response_started = True
        self.wfile.write(data)

    def send_error(self, code, message=None, explain=None):
        # Used by BaseHTTPRequestHandler for unparsable requests (400, 414, 431, 505...).
        self.close_connection = True
        try:
            self.send(code, jdump({"code": "protocol_error", "message": message or reason_phrase(code)}))
        except Exception:
            pass

    def send_json(self, obj, status=200, headers=()):
        self.send(status, jdump(obj), "application/json", headers)

    def send_error_json(self, status, code, message, headers=()):
        self.send_json({"code": code, "message": message}, status, headers)

    def start_stream(self, status, headers=(), content_type="application/octet-stream",
                     length=None, chunked=False):
        self._response_started = True
        self.wfile.write(self._header_block(status, headers, content_type, length, chunked))

    def write_pieces(self, pieces):
        w = self.wfile.write
        for p in pieces:
            w(p)

    def hard_close(self):
        """Close the connection abruptly (FIN, no TLS close_notify)."""
        self.close_connection = True
        try:
            self.wfile.flush()
        except Exception:
            pass
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except Exception:
            pass

    # ---- dispatch -------------------------------------------------------

    def _dispatch(self):
        self._response_started = False
        self._body_started = False
        self._body_done = False
        self.body = b""
        raw = self.path
        if raw.startswith("/"):
            path, _, query = raw.partition("?")
            path = path.partition("#")[0]
            query = query.partition("#")[0]
        else:
            parts = urlsplit(raw)
            path, query = parts.path or "/", parts.query
        self.req_path = path
        self.query = query
        self.qs = parse_qsl(query, keep_blank_values=True)

        server = self.server
        if path.startswith("/_admin/"):
            self.request_count = server.get_count()
        else:
            self.request_count = server.increment()
        if VERBOSE:
            log("%s conn %d: %s %s" % (server.name, self.connection_id, self.command, raw))

        route, rest = self._route(path)
        try:
            if route is not Handler.r_upload:
                self.body = self._read_body()
            route(self, rest)
            if not self._body_done:
                # the handler didn't consume the request body: can't reuse the connection
                self.close_connection = True
        except BadRequest as e:
            self.close_connection = True
            if not self._response_started:
                try:
                    self.send_error_json(400, "bad_request", str(e))
                except Exception:
                    pass
        except CLIENT_GONE_ERRORS as e:
            self.close_connection = True
            if VERBOSE:
                log("%s conn %d: client gone during %s %s: %r"
                    % (server.name, self.connection_id, self.command, raw, e))
        except Exception:
            self.close_connection = True
            log_exception("%s conn %d: error handling %s %s"
                          % (server.name, self.connection_id, self.command, raw))
            if not self._response_started:
                try:
                    self.send_error_json(500, "server_error", "exception in handler")
                except Exception:
                    pass

    def _route(self, path):
        r = EXACT_ROUTES.get(path)
        if r is not None:
            return r, ""
        for prefix, r in PREFIX_ROUTES:
            if path.startswith(prefix):
                return r, path[len(prefix):]
        return Handler.r_not_found, ""

    # ---- echo -----------------------------------------------------------

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

    def r_not_found(self, rest):
        self.send_error_json(404, "not_found", "no route %s" % self.req_path)

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

    # ---- faults ---------------------------------------------------------

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

    # ---- large ----------------------------------------------------------

    def _size_arg(self, rest):
        try:
            n = int(rest.strip("/"))
        except ValueError:
            return None
        return n if n >= 0 else None

    def r_bytes(self, rest):
        n = self._size_arg(rest)
        if n is None:
            return self.send_error_json(400, "bad_request", "bad size")
        self.start_stream(200, [("X-SHA256", pattern_sha256(n))], length=n)
        if self.command != "HEAD":
            self.write_pieces(pattern_pieces(0, n))

    def r_stream_bytes(self, rest):
        n = self._size_arg(rest)
        if n is None:
            return self.send_error_json(400, "bad_request", "bad size")
        self.start_stream(200, [("X-SHA256", pattern_sha256(n))], chunked=True)
        if self.command == "HEAD":
            return
        w = self.wfile.write
        for p in pattern_pieces(0, n):
            w(b"%x\r\n" % len(p) + bytes(p) + b"\r\n")
        w(b"0\r\n\r\n")

    def r_gzip(self, rest):
        payload = jdump({"gzipped": True})
        if accepts_gzip(self.headers.get("Accept-Encoding")):
            self.send(200, gzip.compress(payload), "application/json",
                      [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")])
        else:
            self.send(200, payload, "application/json", [("Vary", "Accept-Encoding")])

    # ---- upload ---------------------------------------------------------

    def r_upload(self, rest):
        ctype = self.headers.get("Content-Type")
        is_multipart = media_type(ctype) == "multipart/form-data"
        h = hashlib.sha256()
        size = 0
        buf = bytearray() if is_multipart else None
        too_large = False
        for piece in self._iter_body():
            h.update(piece)
            size += len(piece)
            if buf is not None:
                if size <= MULTIPART_BUFFER_LIMIT:
                    buf += piece
                else:
                    buf = None
                    too_large = True
        result = {"size": size, "sha256": h.hexdigest(), "content_type": ctype,
                  "method": self.command, "multipart": None,
                  "request_count": self.request_count, "connection_id": self.connection_id}
        if buf is not None:
            result["multipart"] = parse_multipart(bytes(buf), ctype)
        elif too_large:
            result["multipart_error"] = "body larger than %d bytes, not parsed" % MULTIPART_BUFFER_LIMIT
        self.send_json(result)

    # ---- ranges ---------------------------------------------------------

    def _serve_range(self, rest, cut_key=None):
        n = self._size_arg(rest)
        if n is None:
            return self.send_error_json(400, "bad_request", "bad size")
        etag = '"range-%d"' % n
        headers = [
            ("Accept-Ranges", "bytes"),
            ("ETag", etag),
            ("Last-Modified", LAST_MODIFIED),
            ("Content-Disposition", 'attachment; filename="data-%d.bin"' % n),
            ("X-Entity-SHA256", pattern_sha256(n)),
        ]
        head = self.command == "HEAD"
        rng = self.headers.get("Range")
        if rng is not None:
            if_range = self.headers.get("If-Range")
            if if_range is not None and if_range.strip() not in (etag, LAST_MODIFIED):
                rng = None
        if rng is not None:
            parsed = parse_range(rng, n)
            if parsed == "unsatisfiable":
                return self.send(416, b"", None, headers + [("Content-Range", "bytes */%d" % n)])
            if parsed is not None:
                start, end = parsed
                length = end - start + 1
                self.start_stream(206, headers + [("Content-Range", "bytes %d-%d/%d" % (start, end, n))],
                                  length=length)
                if not head:
                    self.write_pieces(pattern_pieces(start, length))
                return
        if cut_key is not None and not head:
            with STATE_LOCK:
                first_time = cut_key not in RANGE_CUT_DONE
                RANGE_CUT_DONE.add(cut_key)
            if first_time:
                self.start_stream(200, headers, length=n)
                self.write_pieces(pattern_pieces(0, n // 2))
                self.hard_close()
                return
        self.start_stream(200, headers, length=n)
        if not head:
            self.write_pieces(pattern_pieces(0, n))

    def r_range(self, rest):
        self._serve_range(rest)

    def r_range_cut(self, rest):
        self._serve_range(rest, cut_key=first(self.qs, "key", "default"))

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
    # ---- HTTP cache (cache helper) ---------------------------------------

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

    # ---- download integrity (downloads helper) ---------------------------

    def r_range_shifted(self, rest):
        """/range-shifted/<n>?shift=K: another entity of n bytes (byte i is (i + K) % 251) with the
        same ETag and Last-Modified as /range/<n>, as servers that derive ETags from size and
        time give unrelated files; honours Range with If-Range like /range/<n>."""
        n = self._size_arg(rest)
        try:
            shift = int(first(self.qs, "shift", "1")) % 251
        except ValueError:
            shift = None
        if n is None or n > 64 << 20 or shift is None:
            return self.send_error_json(400, "bad_request", "bad size or shift")

        def pieces(offset, length):
            pos, end = offset, offset + length
            while pos < end:
                count = min(PIECE, end - pos)
                start = (pos + shift) % 251
                yield _PATTERN_VIEW[start:start + count]
                pos += count

        digest = hashlib.sha256()
        for piece in pieces(0, n):
            digest.update(piece)
        etag = '"range-%d"' % n
        headers = [("Accept-Ranges", "bytes"), ("ETag", etag), ("Last-Modified", LAST_MODIFIED),
                   ("X-Entity-SHA256", digest.hexdigest())]
        start = 0
        rng = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        if rng is not None and (if_range is None or if_range.strip() in (etag, LAST_MODIFIED)):
            parsed = parse_range(rng, n)
            if parsed == "unsatisfiable":
                return self.send(416, b"", None, headers + [("Content-Range", "bytes */%d" % n)])
            if parsed is not None:
                start = parsed[0]
        if start > 0:
            self.start_stream(206, headers + [("Content-Range", "bytes %d-%d/%d" % (start, n - 1, n))],
                              length=n - start)
        else:
            self.start_stream(200, headers, length=n)
        if self.command != "HEAD":
            self.write_pieces(pieces(start, n - start))

    def r_partial_always(self, rest):
        """/partial-always/<n>: 206 with the second half of /bytes/<n>, whatever was asked."""
        n = self._size_arg(rest)
        if n is None or n < 2:
            return self.send_error_json(400, "bad_request", "bad size")
        start = n // 2
        self.start_stream(206, [("Content-Range", "bytes %d-%d/%d" % (start, n - 1, n)), ("ETag", '"partial-%d"' % n)],
                          length=n - start)
        if self.command != "HEAD":
            self.write_pieces(pattern_pieces(start, n - start))

    def r_gzip_bomb(self, rest):
        """/gzip-bomb/<n>: n zero bytes, gzip-compressed (about n/1000 bytes on the wire), sent with
        Content-Encoding: gzip whatever Accept-Encoding says, and the compressed Content-Length."""
        n = self._size_arg(rest)
        if n is None or n > 1 << 30:
            return self.send_error_json(400, "bad_request", "bad size (at most 1 GiB)")
        body, decoded_sha256 = gzip_bomb(n)
        self.start_stream(200, [("Content-Encoding", "gzip"), ("X-Decoded-Size", str(n)),
                                ("X-Decoded-SHA256", decoded_sha256)], length=len(body))
        if self.command != "HEAD":
            self.wfile.write(body)
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


EXACT_ROUTES = {
    "/anything": Handler.r_echo,
    "/get": Handler.r_echo,
    "/post": Handler.r_echo,
    "/put": Handler.r_echo,
    "/patch": Handler.r_echo,
    "/delete": Handler.r_echo,
    "/salary": Handler.r_echo,
    "/json": Handler.r_json,
    "/json-array": Handler.r_json_array,
    "/json-invalid": Handler.r_json_invalid,
    "/nonutf8": Handler.r_nonutf8,
    "/empty": Handler.r_empty,
    "/headers/multi": Handler.r_headers_multi,
    "/session": Handler.r_session,
    "/user": Handler.r_user,
    "/cookies": Handler.r_cookies,
    "/cookies/set": Handler.r_cookies_set,
    "/cookies/raw": Handler.r_cookies_raw,
    "/redirect-to": Handler.r_redirect_to,
    "/redirect-loop": Handler.r_redirect_loop,
    "/drip": Handler.r_drip,
    "/fault/truncated": Handler.r_fault_truncated,
    "/fault/close-before-response": Handler.r_fault_close,
    "/fault/partial-headers": Handler.r_fault_partial_headers,
    "/fault/partial-status": Handler.r_fault_partial_status,
    "/fault/partial-headers-length": Handler.r_fault_partial_headers_length,
    "/fault/garbage": Handler.r_fault_garbage,
    "/fault/chunked-truncated": Handler.r_fault_chunked_truncated,
    "/gzip": Handler.r_gzip,
    "/upload": Handler.r_upload,
    "/flaky": Handler.r_flaky,
    "/flaky/count": Handler.r_flaky_count,
    "/flaky/reset": Handler.r_flaky_reset,
    "/auth/token": Handler.r_auth_token,
    "/auth/protected": Handler.r_auth_protected,
    "/auth/expire": Handler.r_auth_expire,
    "/auth/count": Handler.r_auth_count,
    "/auth/reset": Handler.r_auth_reset,
    "/connection-id": Handler.r_connection_id,
    "/_admin/count": Handler.r_admin_count,
    "/_admin/reset": Handler.r_admin_reset,
    "/_admin/counts": Handler.r_admin_counts,
    "/_admin/reset-all": Handler.r_admin_reset_all,
    # leaf
    "/leaf/secrets": Handler.r_leaf_secrets,
    # config helper
    "/stall": Handler.r_stall,
    # cache helper
    "/cache-count": Handler.r_cache_count,
    "/cache-bump": Handler.r_cache_bump,
    # hoptests helper
    "/hoptests/slow-redirect-count": Handler.r_hoptests_slow_redirect_count,
}

PREFIX_ROUTES = [
    ("/anything/", Handler.r_echo),
    ("/status/", Handler.r_status),
    ("/redirect/", Handler.r_redirect_n),
    ("/delay/", Handler.r_delay),
    ("/bytes/", Handler.r_bytes),
    ("/stream-bytes/", Handler.r_stream_bytes),
    ("/range/", Handler.r_range),
    ("/range-cut/", Handler.r_range_cut),
    ("/basic-auth/", Handler.r_basic_auth),
    # downloads helper
    ("/range-shifted/", Handler.r_range_shifted),
    ("/partial-always/", Handler.r_partial_always),
    ("/gzip-bomb/", Handler.r_gzip_bomb),
    # cache helper
    ("/cache/", Handler.r_cache),
    # hoptests helper
    ("/hoptests/slow-redirect/", Handler.r_hoptests_slow_redirect),
]


# --------------------------------------------------------------------------
# Server
# --------------------------------------------------------------------------

class TestServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 128
    allow_reuse_address = True

    def __init__(self, name, handler, ssl_context=None):
        self.name = name
        self.ssl_context = ssl_context
        self._count = 0
        self._count_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), handler)

    def server_bind(self):
        # Skip HTTPServer.server_bind's getfqdn() (a potentially slow DNS lookup).
        socketserver.TCPServer.server_bind(self)
        self.server_name = "localhost"
        self.server_port = self.server_address[1]

    # request counter
    def increment(self):
        with self._count_lock:
            self._count += 1
            return self._count

    def get_count(self):
        with self._count_lock:
            return self._count

    def reset_count(self):
        with self._count_lock:
            self._count = 0

    def get_request(self):
        sock, addr = self.socket.accept()
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        return sock, (addr[0], addr[1], next_connection_id())

    def finish_request(self, request, client_address):
        # Runs in the per-connection thread: the TLS handshake happens here,
        # never in the accept loop.
        if self.ssl_context is None:
            self.RequestHandlerClass(request, client_address, self)
            return
        tls = None
        try:
            request.settimeout(HANDSHAKE_TIMEOUT)
            tls = self.ssl_context.wrap_socket(request, server_side=True,
                                               do_handshake_on_connect=False)
            tls.do_handshake()
        except (OSError, ValueError) as e:
            if VERBOSE:
                log("%s conn %s: TLS handshake failed: %r" % (self.name, client_address[2], e))
            if tls is not None:
                # Let the client read the TLS alert: stop writing, drain what it already sent,
                # then close, so the kernel ends with FIN rather than a reset that would throw
                # the unread alert away on the client's side (TLS 1.3 rejects a missing client
                # certificate after the client has sent its request).
                try:
                    tls.shutdown(socket.SHUT_WR)
                    tls.settimeout(0.5)
                    while tls.recv(65536):
                        pass
                except Exception:
                    pass
                try:
                    tls.close()
                except Exception:
                    pass
            return
        try:
            tls.settimeout(CONNECTION_TIMEOUT)
            self.RequestHandlerClass(tls, client_address, self)
        finally:
            try:
                tls.close()
            except Exception:
                pass

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, CLIENT_GONE_ERRORS):
            if VERBOSE:
                log("%s %s: connection error: %r" % (self.name, client_address, exc))
            return
        log_exception("%s %s: error on connection" % (self.name, client_address))


def make_tls_context(certfile, keyfile, client_ca=None):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(certfile, keyfile)
    ctx.set_alpn_protocols(["http/1.1"])
    if client_ca is not None:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(cafile=client_ca)
    return ctx


def build_listeners(certs_dir):
    specs = [("http", None)]
    if certs_dir:
        p = lambda name: os.path.join(certs_dir, name)
        specs += [
            ("https", make_tls_context(p("leaf-chain.pem"), p("leaf.key"))),
            ("https_expired", make_tls_context(p("expired.pem"), p("expired.key"))),
            ("https_otherhost", make_tls_context(p("otherhost.pem"), p("otherhost.key"))),
            ("https_selfsigned", make_tls_context(p("selfsigned.pem"), p("selfsigned.key"))),
            ("https_mtls", make_tls_context(p("leaf-chain.pem"), p("leaf.key"), client_ca=p("ca.pem"))),
        ]
    for name, ctx in specs:
        LISTENERS[name] = TestServer(name, Handler, ctx)
    return LISTENERS


def watch_stdin():
    try:
        while True:
            data = os.read(0, 65536)
            if not data:
                break
    except OSError:
        pass
    os._exit(0)


def main(argv=None):
    parser = argparse.ArgumentParser(description="HTTPTransport local test server")
    parser.add_argument("--certs", metavar="DIR", help="directory produced by make_certs.py; enables https_* listeners")
    parser.add_argument("--ignore-stdin", action="store_true",
                        help="do not exit when stdin reaches EOF (for manual use)")
    args = parser.parse_args(argv)

    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.signal(signal.SIGINT, lambda *_: os._exit(0))

    listeners = build_listeners(args.certs)
    for srv in listeners.values():
        t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.5},
                             name="serve-" + srv.name, daemon=True)
        t.start()
    if not args.ignore_stdin:
        threading.Thread(target=watch_stdin, name="stdin-watch", daemon=True).start()

    ports = {name: srv.server_address[1] for name, srv in listeners.items()}
    sys.stdout.write(json.dumps(ports) + "\n")
    sys.stdout.flush()

    while True:
        signal.pause()


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except BaseException:
        log_exception("fatal error")
        os._exit(1)
