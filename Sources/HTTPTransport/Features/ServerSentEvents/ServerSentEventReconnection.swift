import Foundation

/// When an event stream reconnects, and when it ends: the HTML Standard's reconnection rules
/// and the caller's `ServerSentEventReconnectionPolicy` as a value, one decision per
/// connection, so that the blocking and the async readers share them (each only waits as told)
/// and tests check them without a server. The random source of the jitter is injected, so a
/// test's decisions are exact.
///
/// - A stream that ends cleanly, or fails with a network error (no connection, name resolution,
///   time-out, a connection cut mid-stream), reconnects after the policy's wait, which starts
///   from the last `retry` the server sent (else 3 s), with `Last-Event-ID` when an id was seen.
/// - A 204 ends the events normally; any other status than 200, a `Content-Type` other than
///   `text/event-stream`, or an error a new attempt cannot mend (TLS, pinning, an invalid URL,
///   an interceptor's) fails at once.
/// - The first connection is not retried when it fails before opening: a wrong URL or a server
///   that is down fails at once instead of after six attempts.
/// - A reconnect that ends without an event, cleanly or not, is a failure: each one doubles the
///   next wait, and `maxConsecutiveFailures` of them in a row end the events with the last
///   error (for clean ends, an error that says so). An event resets the count.
struct ServerSentEventReconnection: Sendable {
    /// The server's reconnection time before it sends a `retry`, in milliseconds.
    static let defaultReconnectionTime = 3_000

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
        case reconnect(afterSeconds: TimeInterval)
        case finish
        case fail(HTTPTransportError)
    }

    let policy: ServerSentEventReconnectionPolicy
    /// The stream's URL, for the error of a stream that keeps closing without an event.
    private let url: String
    /// A value in -1...1 for each wait's jitter.
    private let random: @Sendable () -> Double
    /// The server's reconnection time in milliseconds (its last `retry`).
    private(set) var reconnectionTime = Self.defaultReconnectionTime
    /// The last event ID seen ("" for none).
    private(set) var lastEventID: String
    /// Reconnects in a row that ended without an event.
    private(set) var failedReconnects = 0
    /// Connections that ended so far: the next to end is a reconnect once one has.
    private var endedConnections = 0
    /// Whether a connection has opened (200 and `text/event-stream`) yet.
    private(set) var hasOpened = false

    /// Rules for a new stream at `url`; `lastEventID` resumes one read before.
    init(lastEventID: String = "", policy: ServerSentEventReconnectionPolicy = .init(), url: String = "",
         random: @escaping @Sendable () -> Double = { Double.random(in: -1...1) }) {
        self.lastEventID = lastEventID
        self.policy = policy
        self.url = url
        self.random = random
    }

    /// The `Last-Event-ID` the next connection sends, if any.
    var lastEventIDHeader: String? { lastEventID.isEmpty ? nil : lastEventID }

    /// A connection's head was accepted as an event stream.
    mutating func connectionOpened() { hasOpened = true }

    /// The connection read by `decoder` ended with `outcome`, after delivering events or not.
    mutating func connectionEnded(_ outcome: Outcome, decoder: ServerSentEventDecoder, deliveredEvents: Bool) -> Decision {
        lastEventID = decoder.lastEventID
        if let time = decoder.reconnectionTime { reconnectionTime = time }
        let wasReconnect = endedConnections > 0
        endedConnections += 1
        if deliveredEvents {
            failedReconnects = 0
        } else if wasReconnect {
            failedReconnects += 1
        }
        switch outcome {
        case .noContent:
            return .finish
        case .refused(let error):
            return .fail(error)
        case .ended:
            return reconnect(orFailWith: closedWithoutEventsError)
        case .failed(let error):
            guard hasOpened, Self.isNetworkFailure(error) else { return .fail(error) }
            return reconnect(orFailWith: error)
        }
    }

    /// Reconnect after the policy's wait, or give up with `error` after too many failures.
    private func reconnect(orFailWith error: @autoclosure () -> HTTPTransportError) -> Decision {
        if policy.givesUp(after: failedReconnects) { return .fail(error()) }
        let retry = Double(reconnectionTime) / 1_000
        return .reconnect(afterSeconds: policy.delay(beforeReconnect: failedReconnects + 1, retry: retry, random: random()))
    }

    private var closedWithoutEventsError: HTTPTransportError {
        HTTPTransportError(
            code: .badResponse,
            message: "The event stream was reconnected \(failedReconnects) times in a row without an event, and the server "
                + "closed the last connection without one; giving up "
                + "(ServerSentEventReconnectionPolicy.maxConsecutiveFailures, nil to reconnect forever).",
            url: url)
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
