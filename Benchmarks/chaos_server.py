#!/usr/bin/env python3
"""A fault-injecting HTTP(S) server for the chaos soak (Benchmarks/chaos.sh).

Loopback only. Each request names its fault in the path, /chaos/<fault>?n=<id>, so the client
knows what it asked for and can check what it got (an `ok` body carries the request's id back):

  ok            200, JSON body of a random size (0-64 KiB) naming the id; the connection stays open
  gzip          the same, gzip-encoded (Content-Encoding: gzip)
  slowheaders   the same, its header lines sent 0.1 s apart
  slowbody      the same, its body dripped in ten pieces 0.1 s apart
  status5xx     503 with Retry-After: 0, or 500 (the client's retrier sends it again)
  badgzip       Content-Encoding: gzip over bytes that are not gzip
  truncate      Content-Length larger than the body sent, then the connection closes
  chunkcut      a chunked body cut after its first chunk
  reset         the request read, then a TCP reset (SO_LINGER 0)
  empty         the request read, then the connection closed without a byte
  garbage       a reply that is not HTTP
  stall         the request read, then nothing for STALL seconds (past the client's time-out)
  tlsclose      (TLS listener) headers and part of the body, then the socket closed without
                a TLS close_notify

A third listener, `tls_abort`, resets every connection during the TLS handshake.

Bounded: at most MAX_CONNECTIONS connections are served at once (more are closed at once),
a stall lasts STALL seconds at most, and every socket has a time-out. Prints one JSON line with
the ports ({"http": …, "https": …, "tls_abort": …}) and runs until its stdin reaches EOF.
"""

import gzip
import json
import os
import random
import socket
import ssl
import struct
import sys
import threading
import time

MAX_CONNECTIONS = 256
STALL = 8.0
SOCKET_TIMEOUT = 30.0

slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
counts = {}
counts_lock = threading.Lock()


def count(fault):
    with counts_lock:
        counts[fault] = counts.get(fault, 0) + 1


def read_request(conn):
    """The request head's path, or None when the peer closed or sent no HTTP request."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return None
        data += chunk
        if len(data) > 65536:
            return None
    line = data.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split(" ")
    return parts[1] if len(parts) >= 2 else None


def ok_body(path):
    query = path.split("?", 1)[1] if "?" in path else ""
    ident = dict(p.split("=", 1) for p in query.split("&") if "=" in p).get("n", "")
    padding = "x" * random.randint(0, 65536)
    return json.dumps({"n": ident, "padding": padding}).encode()


def head(status, headers):
    lines = [f"HTTP/1.1 {status}"] + [f"{name}: {value}" for name, value in headers] + ["", ""]
    return "\r\n".join(lines).encode()


def reset(conn):
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def serve_fault(conn, fault, path, raw):
    """Answers one request; returns whether the connection may carry another."""
    count(fault)
    if fault in ("ok", "gzip", "slowheaders", "slowbody"):
        body = ok_body(path)
        headers = [("Content-Type", "application/json")]
        if fault == "gzip":
            body = gzip.compress(body)
            headers.append(("Content-Encoding", "gzip"))
        headers.append(("Content-Length", str(len(body))))
        if fault == "slowheaders":
            for line in head("200 OK", headers).split(b"\r\n")[:-1]:
                conn.sendall(line + b"\r\n")
                time.sleep(0.1)
            conn.sendall(body)
        elif fault == "slowbody":
            conn.sendall(head("200 OK", headers))
            step = max(1, len(body) // 10 + 1)
            for start in range(0, len(body), step):
                conn.sendall(body[start:start + step])
                time.sleep(0.1)
        else:
            conn.sendall(head("200 OK", headers) + body)
        return True
    if fault == "status5xx":
        body = b'{"error":"unavailable"}'
        status, extra = random.choice([("503 Service Unavailable", [("Retry-After", "0")]),
                                       ("500 Internal Server Error", [])])
        conn.sendall(head(status, extra + [("Content-Length", str(len(body)))]) + body)
        return True
    if fault == "badgzip":
        body = os.urandom(512)
        conn.sendall(head("200 OK", [("Content-Encoding", "gzip"), ("Content-Length", str(len(body)))]) + body)
        return False
    if fault == "truncate":
        conn.sendall(head("200 OK", [("Content-Length", "100000")]) + b"y" * 1000)
        return False
    if fault == "chunkcut":
        conn.sendall(head("200 OK", [("Transfer-Encoding", "chunked")]) + b"10\r\n0123456789abcdef\r\n")
        return False
    if fault == "reset":
        reset(raw)
        return False
    if fault == "empty":
        return False
    if fault == "garbage":
        conn.sendall(b"SSH-2.0-OpenSSH_9.2\r\nnot http at all\r\n\r\n")
        return False
    if fault == "stall":
        time.sleep(STALL)
        return False
    if fault == "tlsclose":
        conn.sendall(head("200 OK", [("Content-Length", "5000")]) + b"z" * 100)
        # Closing the raw socket under the TLS layer: no close_notify reaches the client.
        raw.shutdown(socket.SHUT_RDWR)
        return False
    body = b"unknown fault"
    conn.sendall(head("404 Not Found", [("Content-Length", str(len(body)))]) + body)
    return True


def handle(conn, raw):
    try:
        conn.settimeout(SOCKET_TIMEOUT)
        while True:
            path = read_request(conn)
            if path is None:
                return
            fault = path.split("?", 1)[0].rsplit("/", 1)[-1]
            if not serve_fault(conn, fault, path, raw):
                return
    except (OSError, ssl.SSLError):
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass
        slots.release()


def accept_loop(listener, context, abort_handshake):
    while True:
        try:
            raw, _ = listener.accept()
        except OSError:
            return
        if not slots.acquire(blocking=False):
            raw.close()
            continue
        if abort_handshake:
            count("tls_abort")
            try:
                raw.settimeout(5)
                raw.recv(64)  # the start of the ClientHello
                reset(raw)
            except OSError:
                pass
            raw.close()
            slots.release()
            continue
        threading.Thread(target=serve_connection, args=(raw, context), daemon=True).start()


def serve_connection(raw, context):
    conn = raw
    if context is not None:
        try:
            raw.settimeout(SOCKET_TIMEOUT)
            conn = context.wrap_socket(raw, server_side=True)
        except (OSError, ssl.SSLError):
            raw.close()
            slots.release()
            return
    handle(conn, raw)


def listen():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(512)
    return listener


def main():
    certs = sys.argv[1]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(certs, "leaf-chain.pem"), os.path.join(certs, "leaf.key"))
    listeners = {"http": (listen(), None, False), "https": (listen(), context, False), "tls_abort": (listen(), None, True)}
    for listener, ctx, abort in listeners.values():
        threading.Thread(target=accept_loop, args=(listener, ctx, abort), daemon=True).start()
    print(json.dumps({name: entry[0].getsockname()[1] for name, entry in listeners.items()}), flush=True)
    sys.stdin.read()  # until the soak closes the pipe
    with counts_lock:
        print(json.dumps({"served": counts}), flush=True)


if __name__ == "__main__":
    main()
