import Foundation

extension HTTPTransport {
    /// The Server-Sent Events of the stream at `request`, as they arrive, across reconnections.
    ///
    /// Nothing is sent until the loop asks for the first event. When the connection ends or the
    /// network cuts it, the stream is connected again with `Last-Event-ID` after a wait that
    /// `reconnection` sets from the server's last `retry` (3 s when it sent none): at least
    /// 0.5 s, doubled for each reconnect in a row that brings no event, at most a minute, ±20 %.
    /// A 204 No Content ends the sequence. It throws, without reconnecting, for a status other
    /// than 200 or 204, a `Content-Type` other than `text/event-stream`, an error a new
    /// connection cannot mend (TLS, an invalid URL) or a first connection that cannot be made;
    /// and after five reconnects in a row without an event (`reconnection`'s
    /// `maxConsecutiveFailures`). Cancelling the task or breaking out of the loop stops the
    /// transfer, or the wait, at once. See the "Server-Sent Events" article.
    ///
    /// ```swift
    /// for try await event in transport.events(HTTPRequest(endpoint: "https://ci.example.com/builds/42/events")) {
    ///     print(event.event, event.data)
    /// }
    /// ```
    public func events(_ request: HTTPRequest,
                       reconnection: ServerSentEventReconnectionPolicy = .init()) -> ServerSentEventSequence {
        ServerSentEventSequence(transport: self, request: request, reconnection: reconnection)
    }
}

/// The events of `HTTPTransport.events(_:)`: an `AsyncSequence` of ``ServerSentEvent`` that
/// throws ``HTTPTransportError``. Each iteration follows the stream from the start.
public struct ServerSentEventSequence: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent
    public typealias Failure = HTTPTransportError

    let transport: HTTPTransport
    let request: HTTPRequest
    let reconnection: ServerSentEventReconnectionPolicy

    public func makeAsyncIterator() -> Iterator { Iterator(transport: transport, request: request, policy: reconnection) }

    /// Connects, reads and reconnects as the events are asked for; dropping it stops the transfer.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        public typealias Element = ServerSentEvent
        public typealias Failure = HTTPTransportError

        /// The connection being read.
        private struct Connection: Sendable {
            var body: HTTPResponseStream.Body.Iterator
            var decoder: ServerSentEventDecoder
            var deliveredEvents = false
        }

        private let transport: HTTPTransport
        private let request: HTTPRequest
        private var reconnection: ServerSentEventReconnection
        private var connection: Connection?
        /// Decoded events not handed out yet.
        private var pending: [ServerSentEvent] = []
        private var pendingIndex = 0
        /// Seconds to wait before the next connection (none before the first).
        private var delay: TimeInterval?
        private var finished = false

        init(transport: HTTPTransport, request: HTTPRequest, policy: ServerSentEventReconnectionPolicy) {
            self.transport = transport
            self.request = request
            reconnection = ServerSentEventReconnection(lastEventID: EventStreamRequest.initialLastEventID(request),
                                                       policy: policy, url: request.endpoint)
        }

        public mutating func next() async throws(HTTPTransportError) -> ServerSentEvent? {
            try await next(isolation: nil)
        }

        /// The next event, read on the caller's actor (no hop per chunk for a reader on an actor).
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPTransportError) -> ServerSentEvent? {
            while true {
                if pendingIndex < pending.count {
                    defer { pendingIndex += 1 }
                    return pending[pendingIndex]
                }
                if finished { return nil }
                if connection == nil {
                    try await connect()
                } else {
                    try await read(isolation: actor)
                }
            }
        }

        private mutating func connect() async throws(HTTPTransportError) {
            if let delay {
                do {
                    try await Task.sleep(for: .seconds(delay))
                } catch {
                    finished = true
                    throw HTTPTransportError(code: .cancelled, message: "The task was cancelled.", url: request.endpoint)
                }
            }
            let decoder = ServerSentEventDecoder(lastEventID: reconnection.lastEventID)
            let stream: HTTPResponseStream
            do {
                stream = try await transport.stream(EventStreamRequest.connection(request, lastEventID: reconnection.lastEventIDHeader))
            } catch {
                return try end(.failed(error), decoder: decoder, deliveredEvents: false)
            }
            if let outcome = EventStreamRequest.outcome(status: stream.httpStatus, headers: stream.rawHeaders,
                                                        url: stream.request.url.absoluteString) {
                stream.cancel()
                return try end(outcome, decoder: decoder, deliveredEvents: false)
            }
            reconnection.connectionOpened()
            connection = Connection(body: stream.body.makeAsyncIterator(), decoder: decoder)
        }

        private mutating func read(isolation actor: isolated (any Actor)?) async throws(HTTPTransportError) {
            guard var current = connection else { return }
            connection = nil  // (the body's iterator must stay unique to be read in place)
            let chunk: Data?
            do {
                chunk = try await current.body.next(isolation: actor)
            } catch {
                return try end(.failed(error), decoder: current.decoder, deliveredEvents: current.deliveredEvents)
            }
            guard let chunk else {
                return try end(.ended, decoder: current.decoder, deliveredEvents: current.deliveredEvents)
            }
            pending = current.decoder.decode(chunk)
            pendingIndex = 0
            if current.decoder.isOverlong {
                // Ends without reconnecting: the server would send the same again.
                throw ServerSentEventDecoder.overlongError(url: request.endpoint)
            }
            if !pending.isEmpty { current.deliveredEvents = true }
            connection = current
        }

        /// The connection ended with `outcome`: wait and reconnect, finish, or throw.
        private mutating func end(_ outcome: ServerSentEventReconnection.Outcome, decoder: ServerSentEventDecoder,
                                  deliveredEvents: Bool) throws(HTTPTransportError) {
            connection = nil
            switch reconnection.connectionEnded(outcome, decoder: decoder, deliveredEvents: deliveredEvents) {
            case .reconnect(let seconds):
                delay = seconds
            case .finish:
                finished = true
            case .fail(let error):
                finished = true
                throw error
            }
        }
    }
}
