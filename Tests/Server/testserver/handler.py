"""HandlerBase: reads a request (its target, query and body), dispatches it to a route and writes
responses. The routes themselves live in the *_routes modules; routes.py combines them."""

import socket
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qsl, urlsplit

from .common import (CLIENT_GONE_ERRORS, CONNECTION_TIMEOUT, PIECE, SERVER_NAME, VERBOSE, BadRequest,
                     ClientGone, clean_header_text, encode_header_block, http_date, jdump, log, log_exception,
                     reason_phrase)


def reads_body_itself(route):
    """Marks a route that reads (streams) the request body itself, so dispatch leaves it unread."""
    route.reads_body_itself = True
    return route


class HandlerBase(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = SERVER_NAME
    sys_version = ""
    timeout = CONNECTION_TIMEOUT
    disable_nagle_algorithm = True
    exact_routes = {}    # path -> route, set by routes.py
    prefix_routes = []   # (prefix, route), set by routes.py

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
            if not getattr(route, "reads_body_itself", False):
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
        r = self.exact_routes.get(path)
        if r is not None:
            return r, ""
        for prefix, r in self.prefix_routes:
            if path.startswith(prefix):
                return r, path[len(prefix):]
        return HandlerBase.r_not_found, ""

    def r_not_found(self, rest):
        self.send_error_json(404, "not_found", "no route %s" % self.req_path)
