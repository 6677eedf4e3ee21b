import Foundation

extension HTTPTransport {
    /// Follows the Server-Sent Events stream at `request` on the calling thread, handing each
    /// event to `onEvent` as it arrives; returns when `onEvent` answers `false`, or when the
    /// server answers 204 No Content.
    ///
    /// When the connection ends or the network cuts it, the stream is connected again with
    /// `Last-Event-ID` after a wait that `reconnection` sets from the server's last `retry` (3 s
    /// when it sent none): at least 0.5 s, doubled for each reconnect in a row that brings no
    /// event, at most a minute, ±20 %. It throws, without reconnecting, for a status other than
    /// 200 or 204, a `Content-Type` other than `text/event-stream`, an error a new connection
    /// cannot mend (TLS, an invalid URL) or a first connection that cannot be made; and after
    /// five reconnects in a row without an event (`reconnection`'s `maxConsecutiveFailures`).
    /// See the "Server-Sent Events" article.
    ///
    /// ```swift
    /// try transport.events(request: HTTPRequest(endpoint: "https://ci.example.com/builds/42/events")) { event in
    ///     print(event.event, event.data)
    ///     return event.event != "done"
    /// }
    /// ```
    public func events(request: HTTPRequest, onEvent: @escaping @Sendable (ServerSentEvent) -> Bool,
                       reconnection: ServerSentEventReconnectionPolicy = .init()) throws(HTTPTransportError) {
        try events(request: request, control: TransferControl(), reconnection: reconnection, onEvent: onEvent)
    }

    /// `events(request:onEvent:reconnection:)` with per-send controls: `control.cancellation`
    /// stops the stream from another thread, during a transfer or the wait before a reconnect
    /// (it then throws `.cancelled`), and `control.progress` sees each connection's bytes.
    public func events(request: HTTPRequest, control: TransferControl,
                       reconnection policy: ServerSentEventReconnectionPolicy = .init(),
                       onEvent: @escaping @Sendable (ServerSentEvent) -> Bool) throws(HTTPTransportError) {
        var reconnection = ServerSentEventReconnection(lastEventID: EventStreamRequest.initialLastEventID(request),
                                                       policy: policy, url: request.endpoint)
        while true {
            let consumer = ServerSentEventConsumer(lastEventID: reconnection.lastEventID, onEvent: onEvent)
            let connection = EventStreamRequest.connection(request, lastEventID: reconnection.lastEventIDHeader)
            let result = send(request: connection.streamingBody(StreamingBody(consumer: consumer)), control: control)
            if consumer.stopped { return }
            if consumer.opened { reconnection.connectionOpened() }
            let outcome = consumer.outcome(of: result)
            switch reconnection.connectionEnded(outcome, decoder: consumer.decoder, deliveredEvents: consumer.deliveredEvents) {
            case .reconnect(let seconds):
                guard CancellationHandle.wait(seconds, unless: control.cancellation) else {
                    throw HTTPTransportError(code: .cancelled, message: "The event stream was cancelled.", url: request.endpoint)
                }
            case .finish:
                return
            case .fail(let error):
                throw error
            }
        }
    }
}
