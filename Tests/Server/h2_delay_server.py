#!/usr/bin/python3
"""An HTTP/2 server over TLS (ALPN h2) that answers every GET after a delay, for
Benchmarks/h2-fanout.sh and the HTTP/2 fan-out tests (H2FanOutTests; Benchmarks/baseline/delay_server.c
is fanout.sh's HTTP/1.1 one).

    h2_delay_server.py PORT_FILE SUMMARY_FILE DELAY_MS CERT KEY [MAX_STREAMS]

Listens on 127.0.0.1 at a free port, which it writes to PORT_FILE once it accepts. Every request
is answered 200 with a small JSON body DELAY_MS after its headers arrived. MAX_STREAMS is the
SETTINGS_MAX_CONCURRENT_STREAMS it announces (default 1000; nginx announces 128, many servers
100). On SIGTERM it writes {"accepted": connections, "requests": n, "max_streams": m} to
SUMMARY_FILE and exits: the connections a client opened are the server's own count.

Needs the h2 package (Debian: python3-h2; PyPI: h2, which scripts/setup.sh installs), nothing else:
asyncio and ssl from the standard library.
"""
import asyncio
import json
import signal
import ssl
import sys

import h2.config
import h2.connection
import h2.events
import h2.settings

BODY = b'{"ok":true,"items":[1,2,3]}'


class Tally:
    def __init__(self):
        self.accepted = 0
        self.requests = 0


class Connection(asyncio.Protocol):
    """One client connection: h2's state machine, each request answered by a timer."""

    def __init__(self, tally, delay, max_streams):
        self.tally = tally
        self.delay = delay
        self.max_streams = max_streams
        self.transport = None
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding=None))

    def connection_made(self, transport):
        self.tally.accepted += 1
        self.transport = transport
        self.h2.local_settings = h2.settings.Settings(
            client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.max_streams})
        self.h2.initiate_connection()
        # A large connection window: a thousand answers never wait for WINDOW_UPDATE frames.
        self.h2.increment_flow_control_window(2**30)
        self.flush()

    def data_received(self, data):
        try:
            events = self.h2.receive_data(data)
        except Exception:  # a protocol error: the connection ends, the server goes on
            self.transport.close()
            return
        loop = asyncio.get_running_loop()
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.tally.requests += 1
                loop.call_later(self.delay, self.answer, event.stream_id)
            elif isinstance(event, h2.events.DataReceived):
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        self.flush()

    def answer(self, stream_id):
        if self.transport.is_closing():
            return
        try:
            self.h2.send_headers(stream_id, [(b":status", b"200"), (b"content-type", b"application/json"),
                                             (b"content-length", str(len(BODY)).encode())])
            self.h2.send_data(stream_id, BODY, end_stream=True)
        except Exception:  # the client reset the stream meanwhile
            return
        self.flush()

    def flush(self):
        data = self.h2.data_to_send()
        if data:
            self.transport.write(data)


async def serve(port_file, summary_file, delay, cert, key, max_streams):
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["h2"])
    tally = Tally()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Connection(tally, delay, max_streams), "127.0.0.1", 0,
                                      ssl=context, backlog=4096)
    stopped = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stopped.set)
    loop.add_signal_handler(signal.SIGINT, stopped.set)
    with open(port_file, "w") as out:
        out.write(str(server.sockets[0].getsockname()[1]))
    await stopped.wait()
    server.close()
    with open(summary_file, "w") as out:
        json.dump({"accepted": tally.accepted, "requests": tally.requests, "max_streams": max_streams}, out)


def main():
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__)
    port_file, summary_file, delay_ms, cert, key = sys.argv[1:6]
    max_streams = int(sys.argv[6]) if len(sys.argv) == 7 else 1000
    asyncio.run(serve(port_file, summary_file, int(delay_ms) / 1000, cert, key, max_streams))


if __name__ == "__main__":
    main()
