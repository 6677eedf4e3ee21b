"""The listeners: a threading HTTP server per name, plain or TLS (the handshake runs in the
connection's thread), each counting its requests for the admin routes."""

import itertools
import os
import socket
import socketserver
import sys
import ssl
import threading
from http.server import ThreadingHTTPServer

from .common import CLIENT_GONE_ERRORS, CONNECTION_TIMEOUT, HANDSHAKE_TIMEOUT, LISTENERS, VERBOSE, log, log_exception

_conn_ids = itertools.count(1)
_conn_id_lock = threading.Lock()


def next_connection_id():
    with _conn_id_lock:
        return next(_conn_ids)


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


def build_listeners(certs_dir, handler):
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
        LISTENERS[name] = TestServer(name, handler, ctx)
    return LISTENERS
