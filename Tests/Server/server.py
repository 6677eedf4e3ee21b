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

The server itself is the package testserver/ beside this file, one module a concern (see its
__init__.py). See README.md next to this file for the list of routes.
"""

import argparse
import json
import os
import signal
import sys
import threading

from testserver.common import log_exception
from testserver.listeners import build_listeners
from testserver.routes import Handler


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

    listeners = build_listeners(args.certs, Handler)
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
