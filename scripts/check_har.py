#!/usr/bin/env python3
"""Opens HAR files in a HAR reader from PyPI (haralyzer) and reads every field it offers.

    python3 scripts/check_har.py FILE...

For each file: every page and entry through haralyzer's objects (request, response, timings,
start time, server address, connection port, body text), then a one-line summary. Exits 1 when
a file cannot be read or a field is missing or of the wrong type, naming the file and the entry.
scripts/setup.sh installs haralyzer; scripts/examples.sh runs this on the archive the
DependentRequests example records.
"""
import base64
import sys
from collections import Counter

from haralyzer import HarEntry, HarPage, HarParser


def check_entry(entry: HarEntry) -> None:
    request, response = entry.request, entry.response
    for value, kind in [(request.method, str), (request.url, str), (request.httpVersion, str), (request.headers, list),
                        (request.cookies, list), (request.queryString, list), (request.bodySize, int),
                        (request.headersSize, int), (response.status, int), (response.statusText, str),
                        (response.httpVersion, str), (response.headers, list), (response.bodySize, int),
                        (response.headersSize, int), (response.mimeType, str), (response.contentSize, int),
                        (entry.time, (int, float)), (entry.timings, dict), (entry.cache, dict)]:
        if not isinstance(value, kind):
            raise TypeError(f"{value!r} is not {kind}")
    if entry.startTime is None or entry.startTime.tzinfo is None:
        raise ValueError(f"startedDateTime {entry.raw_entry.get('startedDateTime')!r} is not ISO 8601 with a zone")
    if "connection" in entry.raw_entry:
        entry.port  # an int, as haralyzer reads it
    if "serverIPAddress" in entry.raw_entry:
        entry.serverAddress  # empty for a request that got no connection (Chrome)
    if request.text is not None and not isinstance(request.text, str):
        raise TypeError("request body is not text")
    if "text" in entry.raw_entry["response"]["content"]:
        text = response.text
        if response.textEncoding == "base64":
            base64.b64decode(text, validate=True)


def check(path: str) -> str:
    parser = HarParser.from_file(path)
    if not isinstance(parser.browser.get("name"), str):  # raises without log.browser
        raise SystemExit(f"check_har: {path}: log.browser has no name")
    page_ids = {page.page_id for page in parser.pages}
    for entry in parser.har_data["entries"]:
        if entry.get("pageref") not in page_ids:
            raise SystemExit(f"check_har: {path}: entry {entry['request']['url']} is on no page (pageref {entry.get('pageref')!r})")
    entries = []
    for page in parser.pages:
        assert isinstance(page, HarPage)
        for entry in page.entries:
            try:
                check_entry(entry)
            except Exception as error:  # noqa: BLE001 - reported with the entry
                request = entry.raw_entry.get("request", {})
                raise SystemExit(f"check_har: {path}: entry {request.get('method')} {request.get('url')}: {error!r}")
            entries.append(entry)
    methods = Counter(entry.request.method for entry in entries)
    statuses = Counter(entry.response.status for entry in entries)
    return (f"check_har: {path}: HAR {parser.version} by {parser.creator['name']}, {len(entries)} entries "
            f"({', '.join(f'{count} {method}' for method, count in sorted(methods.items()))}; statuses "
            f"{', '.join(f'{status}×{count}' for status, count in sorted(statuses.items()))}), read with haralyzer")


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for path in sys.argv[1:]:
        print(check(path))


if __name__ == "__main__":
    main()
