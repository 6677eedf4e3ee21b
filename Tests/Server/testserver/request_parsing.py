"""Parsers for what clients send: multipart/form-data bodies, Cookie headers, Range headers and
Accept-Encoding."""

import email.message
import email.utils
import hashlib

from .common import MULTIPART_TEXT_LIMIT, header_param


def parse_multipart(body, content_type):
    """Parse a multipart/form-data body. Returns a list of part dicts or None."""
    boundary = header_param(content_type, "boundary")
    if not boundary:
        return None
    delim = b"--" + boundary.encode("latin-1", "replace")
    return [describe_part(raw_headers, content) for raw_headers, content in split_parts(body, delim)]


def split_parts(body, delim):
    """Yields (raw header bytes, content bytes) per part, stopping at the closing delimiter or at
    the first part that is cut short."""
    pos = body.find(delim)
    if pos < 0:
        return
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
        yield raw_headers, body[content_start:nxt]
        pos = nxt + 2 + len(delim)


def describe_part(raw_headers, content):
    """A part as the echo reports it: its name, file name, type, size, digest, text and headers."""
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
    return {
        "name": pname,
        "filename": fname,
        "content_type": ctype,
        "size": len(content),
        "sha256": hashlib.sha256(content).hexdigest(),
        "text": text,
        "headers": headers,
    }


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
