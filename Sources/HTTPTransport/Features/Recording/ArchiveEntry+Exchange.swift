import Foundation

extension ArchiveEntry {
    /// The entry for one exchange as a response interceptor sees it, its secrets hidden by
    /// `redaction`; `now` is when the exchange ended.
    init(_ response: RawResponse, redaction: LogRedaction, now: Date) {
        let metrics = response.metrics
        let timings = ArchiveTimings(metrics)
        let httpVersion = Self.harVersion(metrics.httpVersion)
        self.init(
            startedDateTime: Self.timestamp(now.addingTimeInterval(-metrics.total)),
            time: timings.total,
            request: ArchiveRequest(response.request, sentHeaders: response.sentHeaders, metrics: metrics, httpVersion: httpVersion, redaction: redaction),
            response: ArchiveResponse(response, httpVersion: httpVersion, redaction: redaction),
            timings: timings,
            serverIPAddress: metrics.remoteAddress.isEmpty ? nil : metrics.remoteAddress,
            connection: metrics.localPort > 0 ? String(metrics.localPort) : nil,
            comment: metrics.cacheStatus == .hit ? "answered by the session's HTTP cache" : nil)
    }

    /// HAR's spelling of `TransferMetrics.httpVersion`: `"2"` → `"HTTP/2"`, `"1.1"` → `"HTTP/1.1"`;
    /// `"HTTP/1.1"` when no response told (a stub engine, a failed connection): readers refuse
    /// an empty version, and without a response no other one is known.
    static func harVersion(_ version: String) -> String {
        "HTTP/" + (version.isEmpty ? "1.1" : version)
    }

    /// ISO 8601 in UTC with milliseconds (`2026-11-25T16:52:06.123Z`), as browsers write it.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

extension ArchiveRequest {
    /// `sentHeaders`: the header fields as libcurl sent them, recorded instead of the request's
    /// own when the engine has them (a failure before the head went out has none).
    init(_ request: RawRequest, sentHeaders: HTTPHeaders?, metrics: TransferMetrics, httpVersion: String,
         redaction: LogRedaction) {
        let headers = sentHeaders ?? request.headers
        let url = redaction.redactedURL(request.url)
        let postData = ArchivePostData(request, redaction: redaction)
        var bodySize = 0
        if request.body != nil {
            bodySize = metrics.bytesSent > 0 ? Int(clamping: metrics.bytesSent) : (request.httpBody?.count ?? -1)
        }
        self.init(
            method: request.method.rawValue,
            url: url,
            httpVersion: httpVersion,
            cookies: redaction.archivedRequestCookies(headers),
            headers: redaction.archivedHeaders(headers),
            queryString: Self.queryString(of: url),
            postData: postData,
            bodySize: bodySize)
    }

    /// The query's `name=value` pairs, percent-decoded, from the URL as recorded (redacted).
    static func queryString(of url: String) -> [ArchiveNameValue] {
        let withoutFragment = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let questionMark = withoutFragment.firstIndex(of: "?") else { return [] }
        let query = withoutFragment[withoutFragment.index(after: questionMark)...]
        return query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]), value = parts.count > 1 ? String(parts[1]) : ""
            return ArchiveNameValue(name: name.removingPercentEncoding ?? name, value: value.removingPercentEncoding ?? value)
        }
    }
}

extension ArchiveResponse {
    init(_ response: RawResponse, httpVersion: String, redaction: LogRedaction) {
        let headers = response.headers
        let contentType = headers["Content-Type"]
        var content = ArchiveContent(size: response.data?.count ?? 0, mimeType: contentType ?? "")
        if let data = response.data {
            let body = ArchiveBody.recorded(data, contentType: contentType, redaction: redaction)
            (content.text, content.encoding, content.comment) = (body.comment == nil ? body.text : nil, body.encoding, body.comment)
        } else if response.fileURL != nil {
            content.comment = "the body was written to a file, not recorded"
        }
        // The body's size on the wire is known only when it was not compressed.
        var bodySize = -1
        if let data = response.data, headers["Content-Encoding"] == nil { bodySize = data.count }
        let error = response.error
        // A header with CR, LF or NUL (only an interceptor or a stub makes one) is left out, so
        // that the archive loads: `HTTPArchiveEngine` refuses such a header.
        let replayable = headers.filter { HeaderFieldRules.isValidValue($0.name) && HeaderFieldRules.isValidValue($0.value) }
        self.init(
            status: response.statusCode?.rawValue ?? 0,
            statusText: response.statusCode?.reasonPhrase ?? "",
            httpVersion: httpVersion,
            cookies: redaction.archivedResponseCookies(headers, url: response.request.url),
            headers: redaction.archivedHeaders(HTTPHeaders(replayable)),
            content: content,
            redirectURL: headers["Location"].map { redaction.headerValue($0, name: "Location") } ?? "",
            bodySize: bodySize,
            comment: replayable.count == headers.count ? nil
                : "\(headers.count - replayable.count) headers with CR, LF or NUL were left out",
            error: error.map { redaction.redactedText($0.message) },
            errorCode: error.map { String(describing: $0.code) })
    }
}
