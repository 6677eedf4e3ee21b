import Foundation

extension HTTPTransport {
    /// Follows the Server-Sent Events stream at `request` on the calling thread, handing each
    /// event to `onEvent` as it arrives; returns when `onEvent` answers `false`, or when the
    /// server answers 204 No Content.
    ///
    /// When the connection ends or the network cuts it, the stream is connected again after the
    /// server's last `retry` time (3 s when it sent none), with `Last-Event-ID`. It throws, without
    /// reconnecting, for a status other than 200 or 204, a `Content-Type` other than
    /// `text/event-stream`, an error a new connection cannot mend (TLS, an invalid URL) or a first
    /// connection that cannot be made; and after five failed reconnects in a row without an event.
    /// See the "Server-Sent Events" article.
    ///
    /// ```swift
    /// try transport.events(request: HTTPRequest(endpoint: "https://ci.example.com/builds/42/events")) { event in
    ///     print(event.event, event.data)
    ///     return event.event != "done"
    /// }
    /// ```
    public func events(request: HTTPRequest, onEvent: @escaping @Sendable (ServerSentEvent) -> Bool) throws(HTTPTransportError) {
        var reconnection = ServerSentEventReconnection(lastEventID: EventStreamRequest.initialLastEventID(request))
        while true {
            let consumer = ServerSentEventConsumer(lastEventID: reconnection.lastEventID, onEvent: onEvent)
            let connection = EventStreamRequest.connection(request, lastEventID: reconnection.lastEventIDHeader)
            let result = send(request: connection.streamingBody(StreamingBody(consumer: consumer)))
            if consumer.stopped { return }
            if consumer.opened { reconnection.connectionOpened() }
            let outcome = consumer.outcome(of: result)
            switch reconnection.connectionEnded(outcome, decoder: consumer.decoder, deliveredEvents: consumer.deliveredEvents) {
            case .reconnect(let milliseconds):
                Thread.sleep(forTimeInterval: Double(milliseconds) / 1_000)
            case .finish:
                return
            case .fail(let error):
                throw error
            }
        }
    }
}
