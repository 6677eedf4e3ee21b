"""What every part of the test server shares: limits, errors, logging, the state lock and small
helpers for query pairs and header text."""

import email.message
import email.utils
import http
import json
import os
import socket
import ssl
import sys
import threading
import time
import traceback

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

LISTENERS = {}  # name -> server (insertion order = startup JSON order)

# Guards every route module's state (sessions, counters, cache entries).
STATE_LOCK = threading.Lock()


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
