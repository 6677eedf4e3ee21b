"""Large bodies, uploads, gzip, byte ranges and the download-integrity routes."""

import gzip
import hashlib
import time

from .common import LAST_MODIFIED, MULTIPART_BUFFER_LIMIT, PIECE, STATE_LOCK, first, jdump, media_type
from .handler import reads_body_itself
from .payloads import PATTERN_VIEW, gzip_bomb, pattern_pieces, pattern_sha256
from .request_parsing import accepts_gzip, parse_multipart, parse_range

RANGE_CUT_DONE = set()  # /range-cut/: keys whose first full GET was cut


class TransferRoutes:
    """Bodies of any size built from the byte pattern, so a test can check them by SHA-256."""

    # ---- large -------------------------------------------------------------

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

    # Bytes that are no coding libcurl knows (a gzip magic number included), so any decoding fails.
    UNKNOWN_CODING_BODY = b"\x1f\x8b\x00raw \xff\xfe body\r\n\x00"

    def r_encoding_unknown(self, rest):
        """/encoding/unknown?coding=<value>: UNKNOWN_CODING_BODY as is, with Content-Encoding <value>
        (default foo), on a kept-alive connection."""
        coding = dict(self.qs).get("coding", "foo")
        self.send(200, self.UNKNOWN_CODING_BODY, "application/octet-stream", [("Content-Encoding", coding)])

    def r_encoding_unknown_transfer(self, rest):
        """/encoding/unknown-transfer?coding=<value>: UNKNOWN_CODING_BODY with Transfer-Encoding
        <value> (default arizqhypgxofwne, what the HTTP caching tests send) and max-age=3600;
        chunked when the value ends with chunked, else up to the connection's close (RFC 9112
        §6.3), as the caching tests' server frames it."""
        coding = dict(self.qs).get("coding", "arizqhypgxofwne")
        self.close_connection = True
        self._response_started = True
        body = self.UNKNOWN_CODING_BODY
        if coding.replace(" ", "").lower().endswith(",chunked"):
            body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
        self.wfile.write(self._header_block(200, [("Transfer-Encoding", coding), ("Cache-Control", "max-age=3600")],
                                            "application/octet-stream") + body)

    # ---- upload ---------------------------------------------------------

    @reads_body_itself
    def r_upload(self, rest):
        ctype = self.headers.get("Content-Type")
        is_multipart = media_type(ctype) == "multipart/form-data"
        h = hashlib.sha256()
        size = 0
        buf = bytearray() if is_multipart else None
        too_large = False
        # ?pause_ms=N: a slow reader, N ms after each piece.
        pause = float(first(self.qs, "pause_ms", "0")) / 1000.0
        for piece in self._iter_body():
            if pause:
                time.sleep(pause)
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
                  "request_count": self.request_count, "connection_id": self.connection_id,
                  "transfer_encoding": self.headers.get("Transfer-Encoding"),
                  "content_length": self.headers.get("Content-Length")}
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
                yield PATTERN_VIEW[start:start + count]
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


EXACT_ROUTES = {
    "/gzip": TransferRoutes.r_gzip,
    "/upload": TransferRoutes.r_upload,
    "/encoding/unknown": TransferRoutes.r_encoding_unknown,
    "/encoding/unknown-transfer": TransferRoutes.r_encoding_unknown_transfer,
}

PREFIX_ROUTES = [
    ("/bytes/", TransferRoutes.r_bytes),
    ("/stream-bytes/", TransferRoutes.r_stream_bytes),
    ("/range/", TransferRoutes.r_range),
    ("/range-cut/", TransferRoutes.r_range_cut),
    ("/range-shifted/", TransferRoutes.r_range_shifted),
    ("/partial-always/", TransferRoutes.r_partial_always),
    ("/gzip-bomb/", TransferRoutes.r_gzip_bomb),
]
