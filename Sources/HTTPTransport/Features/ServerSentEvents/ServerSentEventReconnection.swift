/// When an event stream reconnects, and when it ends: the HTML Standard's reconnection rules
/// as a value, one decision per connection, so that the blocking and the async readers share
/// them and tests check them without a server.
///
/// - A stream that ends cleanly, or fails with a network error (no connection, name resolution,
///   time-out, a connection cut mid-stream), reconnects after the reconnection time: the last
///   `retry` the server sent, else 3 s, with `Last-Event-ID` when an id was seen.
/// - A 204 ends the events normally; any other status than 200, a `Content-Type` other than
///   `text/event-stream`, or an error a new attempt cannot mend (TLS, pinning, an invalid URL,
///   an interceptor's) fails at once.
/// - The first connection is not retried when it fails before opening: a wrong URL or a server
///   that is down fails at once instead of after six attempts.
/// - Five failed reconnects in a row without an event in between end the events with the last
///   error; an event resets the count. A clean end without an event neither counts nor resets.
struct ServerSentEventReconnection: Sendable {
    static let defaultReconnectionTime = 3_000
    static let maxFailedReconnects = 5

    /// How a connection ended.
    enum Outcome {
        /// The server answered 204 No Content.
        case noContent
        /// The head was not an event stream (status or `Content-Type`): `error` says which.
        case refused(HTTPTransportError)
        /// The body ended without an error.
        case ended
        /// The exchange failed (before or after the head).
        case failed(HTTPTransportError)
    }

    /// What to do next.
    enum Decision {
        case reconnect(afterMilliseconds: Int)
        case finish
        case fail(HTTPTransportError)
    }

    /// Milliseconds to wait before a reconnection.
    private(set) var reconnectionTime = Self.defaultReconnectionTime
    /// The longest wait before a reconnection, in milliseconds.
    static let maxReconnectionTime = 300_000
    /// The last event ID seen ("" for none).
    private(set) var lastEventID: String
    /// Reconnects in a row that failed without an event.
    private(set) var failedReconnects = 0
    /// Whether a connection has opened (200 and `text/event-stream`) yet.
    private(set) var hasOpened = false

    /// Rules for a new stream; `lastEventID` resumes one read before.
    init(lastEventID: String = "") { self.lastEventID = lastEventID }

    /// The `Last-Event-ID` the next connection sends, if any.
    var lastEventIDHeader: String? { lastEventID.isEmpty ? nil : lastEventID }

    /// A connection's head was accepted as an event stream.
    mutating func connectionOpened() { hasOpened = true }

    /// The connection read by `decoder` ended with `outcome`, after delivering events or not.
    mutating func connectionEnded(_ outcome: Outcome, decoder: ServerSentEventDecoder, deliveredEvents: Bool) -> Decision {
        lastEventID = decoder.lastEventID
        // At most five minutes, whatever the server asks: the blocking reader sleeps that long.
        if let time = decoder.reconnectionTime { reconnectionTime = min(time, Self.maxReconnectionTime) }
        if deliveredEvents { failedReconnects = 0 }
        switch outcome {
        case .noContent:
            return .finish
        case .refused(let error):
            return .fail(error)
        case .ended:
            return .reconnect(afterMilliseconds: reconnectionTime)
        case .failed(let error):
            guard hasOpened, Self.isNetworkFailure(error) else { return .fail(error) }
            if !deliveredEvents { failedReconnects += 1 }
            guard failedReconnects < Self.maxFailedReconnects else { return .fail(error) }
            return .reconnect(afterMilliseconds: reconnectionTime)
        }
    }

    /// Errors a new connection may not meet again; everything else (a status, TLS, the request
    /// itself, cancellation) would fail the same way.
    static func isNetworkFailure(_ error: HTTPTransportError) -> Bool {
        switch error.code {
        case .nameResolution, .cannotConnect, .timeout, .badResponse, .other: true
        default: false
        }
    }
}
