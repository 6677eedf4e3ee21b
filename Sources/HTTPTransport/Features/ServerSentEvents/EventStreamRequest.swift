import Foundation

/// The request and response rules both event readers share: the headers each connection sends,
/// and what a response head means.
enum EventStreamRequest {
    /// `request` as one connection of an event stream: `Accept: text/event-stream`,
    /// `Cache-Control: no-cache`, and `Last-Event-ID` when there is a last event ID (the
    /// caller's own header is dropped once the server cleared the id).
    static func connection(_ request: HTTPRequest, lastEventID: String?) -> HTTPRequest {
        var request = request
            .with(header: "Accept", value: "text/event-stream")
            .with(header: "Cache-Control", value: "no-cache")
        if let lastEventID {
            request = request.with(header: "Last-Event-ID", value: lastEventID)
        } else {
            request.headers = request.headers.filter { $0.key.caseInsensitiveCompare("Last-Event-ID") != .orderedSame }
        }
        return request
    }

    /// The `Last-Event-ID` the caller's request already carries (to resume a stream it read
    /// before), "" when none.
    static func initialLastEventID(_ request: HTTPRequest) -> String {
        request.headers.first { $0.key.caseInsensitiveCompare("Last-Event-ID") == .orderedSame }?.value ?? ""
    }

    /// What a response head means: `nil` for an event stream to read (200 and
    /// `text/event-stream`), else how the connection ended.
    static func outcome(status: HTTPStatusCode?, headers: HTTPHeaders, url: String) -> ServerSentEventReconnection.Outcome? {
        let code = status?.rawValue ?? 0
        if code == 204 { return .noContent }
        guard code == 200 else {
            return .refused(HTTPTransportError(
                code: .httpStatus, message: "The event stream answered \(code) (200 or 204 expected).", url: url,
                httpStatusCode: status, responseHeaders: headers))
        }
        let contentType = headers.first("Content-Type") ?? ""
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        guard mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "text/event-stream" else {
            return .refused(HTTPTransportError(
                code: .badResponse,
                message: "The response is not an event stream: its Content-Type is \"\(contentType)\" (text/event-stream expected).",
                url: url, httpStatusCode: status, responseHeaders: headers))
        }
        return nil
    }
}
