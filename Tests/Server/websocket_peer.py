#!/usr/bin/env python3
"""WebSocket peers for the tests, on 127.0.0.1 (one process, several listeners).

  echo       a strict RFC 6455 server from PyPI (`websockets`), plain
  echo_tls   the same over TLS (the test CA's localhost leaf, from --certs)
  hostile    a raw-socket server of our own that breaks the rules on purpose
  stall      the hostile server on a listener with small kernel buffers (a 1 KiB segment
             size, a 4 KiB receive buffer): a peer that stops reading is full after tens of
             KiB, not the megabytes loopback's autotuned buffers take (6-byte empty frames
             took over 60 s to fill those on a slow machine)

Prints the JSON map of listener ports as its first line and exits when stdin closes.

The `websockets` server's paths: /echo (every message back), /close (closes with 4000 "bye"
after the first message), /flood?count=N&size=S&report=FILE (N binary messages of S bytes,
the number sent so far written to FILE after each), /feed (a text message "tick N" every
50 ms), /headers (the handshake's header fields as a JSON text message), /cookie
(its 101 sets the cookie feed=abc123, then it closes), /protocol (echoes the chosen subprotocol as a text message).

The hostile server's paths: /badutf8, /oversize?size=N, /noclose, /fragmented, /status
(403 with a body), /redirect (302), /nopong (never answers a ping; echoes a close),
/stall?id=X (reads nothing until a plain GET /release?id=X answered 204 on either listener,
or for 60 s; then echoes; meant for the `stall` listener).
"""
import argparse
import asyncio
import base64
import hashlib
import json
import socket
import ssl
import struct
import sys
import urllib.parse

from websockets.asyncio.server import serve

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


async def peer(connection):
    url = urllib.parse.urlsplit(connection.request.path)
    query = dict(urllib.parse.parse_qsl(url.query))
    if url.path == "/echo":
        async for message in connection:
            await connection.send(message)
    elif url.path == "/close":
        await connection.recv()
        await connection.close(4000, "bye")
    elif url.path == "/flood":
        count, size = int(query.get("count", "10")), int(query.get("size", "1024"))
        for number in range(count):
            await connection.send(struct.pack(">I", number) + bytes(size - 4))
            if "report" in query:
                with open(query["report"], "w") as report:
                    report.write(str(number + 1))
        async for message in connection:
            await connection.send(message)
    elif url.path == "/feed":
        number = 0
        while True:
            await connection.send(f"tick {number}")
            number += 1
            await asyncio.sleep(0.05)
    elif url.path == "/cookie":
        await connection.close()
    elif url.path == "/headers":
        await connection.send(json.dumps({name.lower(): value for name, value in connection.request.headers.raw_items()}))
    elif url.path == "/protocol":
        await connection.send(connection.subprotocol or "")
        async for message in connection:
            await connection.send(message)


def set_cookie(connection, request, response):
    """The handshake of /cookie sets a cookie in its 101 (the client's cookie store keeps it)."""
    if request.path.startswith("/cookie"):
        response.headers["Set-Cookie"] = "feed=abc123; Path=/"
    return response


# The hostile server: frames written by hand.

def frame(opcode, payload, fin=True):
    head = bytes([(0x80 if fin else 0) | opcode])
    if len(payload) < 126:
        head += bytes([len(payload)])
    elif len(payload) < 65536:
        head += bytes([126]) + struct.pack(">H", len(payload))
    else:
        head += bytes([127]) + struct.pack(">Q", len(payload))
    return head + payload


async def read_frame(reader):
    first, second = await reader.readexactly(2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack(">H", await reader.readexactly(2))[0]
    elif length == 127:
        length = struct.unpack(">Q", await reader.readexactly(8))[0]
    mask = await reader.readexactly(4) if second & 0x80 else b"\0\0\0\0"
    payload = await reader.readexactly(length)
    # (Unmasked as one big number: a loop over the bytes takes seconds per MiB.)
    key = (mask * (length // 4 + 1))[:length]
    return first & 0x0F, (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(length, "big")


async def echo_close(reader, writer, answer_pings=True, answer=None):
    """Reads frames until the client's close, echoes it (or sends `answer`), and ends the connection."""
    try:
        while True:
            opcode, payload = await read_frame(reader)
            if opcode == 8:
                writer.write(frame(8, payload[:2] if answer is None else answer))
                await writer.drain()
                break
            if opcode == 9 and answer_pings:
                writer.write(frame(10, payload))
            elif opcode in (1, 2):
                writer.write(frame(opcode, payload))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    writer.close()


async def close_with(reader, writer, query):
    """Closes first with the close frame's payload given in hex; the client's answer (its close
    frame's payload, in hex) goes to the file `report`."""
    writer.write(frame(8, bytes.fromhex(query.get("payload", ""))))
    await writer.drain()
    answer = "none"
    try:
        while True:
            opcode, payload = await read_frame(reader)
            if opcode == 8:
                answer = payload.hex() or "-"
                break
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    with open(query["report"], "w") as report:
        report.write(answer)
    writer.close()


async def endless(writer, query):
    """A message whose empty continuation frames never end (for `seconds`, at most 30): the
    socket is always readable and the message never grows."""
    writer.write(frame(1, b"a", fin=False))
    chunk = frame(0, b"", fin=False) * 65536
    deadline = asyncio.get_running_loop().time() + min(float(query.get("seconds", "10")), 30)
    try:
        while asyncio.get_running_loop().time() < deadline:
            writer.write(chunk)
            await writer.drain()
        writer.write(frame(0, b"", fin=True))
        await writer.drain()
    except ConnectionError:
        pass
    writer.close()


# /stall's connections waiting for their /release, by id.
STALLED = {}


async def stall(reader, writer, query):
    """Reads nothing until /release?id=... (or 60 s): the kernel's buffers fill, then the client's."""
    writer.transport.pause_reading()
    released = STALLED.setdefault(query.get("id", ""), asyncio.Event())
    try:
        await asyncio.wait_for(released.wait(), timeout=60)
    except asyncio.TimeoutError:
        pass
    writer.transport.resume_reading()
    await echo_close(reader, writer)


async def hostile(reader, writer):
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    path = head.split(" ")[1]
    url = urllib.parse.urlsplit(path)
    query = dict(urllib.parse.parse_qsl(url.query))
    if url.path == "/status":
        writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\ndenied")
        await writer.drain()
        writer.close()
        return
    if url.path == "/release":
        STALLED.setdefault(query.get("id", ""), asyncio.Event()).set()
        writer.write(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
        await writer.drain()
        writer.close()
        return
    if url.path == "/redirect":
        writer.write(b"HTTP/1.1 302 Found\r\nLocation: /echo\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        writer.close()
        return
    key = next(line.split(":", 1)[1].strip() for line in head.split("\r\n") if line.lower().startswith("sec-websocket-key:"))
    accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
    writer.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
    if url.path == "/badutf8":
        writer.write(frame(1, b"ok"))
        writer.write(frame(1, b"\xff\xfe bad"))
    elif url.path == "/oversize":
        writer.write(frame(2, bytes(int(query.get("size", "2048")))))
    elif url.path == "/noclose":
        writer.write(frame(1, b"last words"))
        await writer.drain()
        writer.close()
        return
    elif url.path == "/emptyflood":
        # Empty messages, two bytes each on the wire: a flood the client's byte count alone
        # would not bound; then "end".
        writer.write(frame(2, b"") * int(query.get("count", "1000")) + frame(1, b"end"))
    elif url.path == "/stall":
        await writer.drain()
        return await stall(reader, writer, query)
    elif url.path == "/closewith":
        return await close_with(reader, writer, query)
    elif url.path == "/endless":
        return await endless(writer, query)
    elif url.path == "/fragmented":
        writer.write(frame(1, b"Hel", fin=False) + frame(9, b"p1") + frame(0, b"lo, ", fin=False)
                     + frame(10, b"unasked") + frame(0, "wörld".encode(), fin=True))
        writer.write(frame(2, b"\x01\x02", fin=False) + frame(0, b"\x03", fin=True))
        writer.write(frame(1, b"", fin=True))
    await writer.drain()
    # (/answer answers the client's close with the close frame's payload given in hex.)
    answer = bytes.fromhex(query["payload"]) if url.path == "/answer" else None
    await echo_close(reader, writer, answer_pings=url.path != "/nopong", answer=answer)


def small_buffered_listener():
    """A listening socket whose connections take little before a stalled reader stops them.

    Set before listen, so accepted connections inherit both: the receive buffer bounds what the
    peer's kernel holds; the segment size, announced in the SYN-ACK, bounds the client's send
    buffer, which Linux sizes from the peer's segment size (about 20 segments) and grows only
    while the receive window is not what limits the flow.
    """
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1024)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.setblocking(False)
    return listener


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--certs", help="the test CA's folder (without it: no echo_tls listener)")
    arguments = parser.parse_args()
    context = None
    if arguments.certs:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(f"{arguments.certs}/leaf.pem", f"{arguments.certs}/leaf.key")
    options = dict(subprotocols=["chat", "superchat"], max_size=None, ping_interval=None, compression=None,
                   process_response=set_cookie)
    # (A server that offers subprotocols refuses a client offering none unless told otherwise.)
    options["select_subprotocol"] = lambda connection, offered: next((name for name in offered if name in ("chat", "superchat")), None)
    async with serve(peer, "127.0.0.1", 0, **options) as plain:
        ports = {"echo": plain.sockets[0].getsockname()[1]}
        if context is not None:
            secure = await serve(peer, "127.0.0.1", 0, ssl=context, **options)
            ports["echo_tls"] = secure.sockets[0].getsockname()[1]
        raw = await asyncio.start_server(hostile, "127.0.0.1", 0)
        ports["hostile"] = raw.sockets[0].getsockname()[1]
        stall_server = await asyncio.start_server(hostile, sock=small_buffered_listener())
        ports["stall"] = stall_server.sockets[0].getsockname()[1]
        print(json.dumps(ports), flush=True)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, sys.stdin.read)


if __name__ == "__main__":
    asyncio.run(main())
