import Foundation

/// One connection of the blocking reader (`events(request:onEvent:)`): takes the body as it
/// arrives on the sending thread, decodes it and hands each event to `onEvent`.
///
/// Chunks that come before the head was checked (libcurl may deliver a head and the body's
/// start in one go) are held until it was: a body that is not an event stream is never decoded.
final class ServerSentEventConsumer: StreamingConsumer {
    private enum Head {
        case awaited
        case eventStream
        /// Not an event stream: how the connection ended.
        case ended(ServerSentEventReconnection.Outcome)
    }

    private struct State {
        var decoder: ServerSentEventDecoder
        var head = Head.awaited
        var held: [Data] = []
        var deliveredEvents = false
        var stopped = false
        var received = false
    }

    private let onEvent: @Sendable (ServerSentEvent) -> Bool
    private let state: Locked<State>

    init(lastEventID: String, onEvent: @escaping @Sendable (ServerSentEvent) -> Bool) {
        self.onEvent = onEvent
        state = Locked(State(decoder: ServerSentEventDecoder(lastEventID: lastEventID)))
    }

    /// The decoder after the connection (its last event ID and reconnection time).
    var decoder: ServerSentEventDecoder { state.withLock { $0.decoder } }
    var deliveredEvents: Bool { state.withLock { $0.deliveredEvents } }
    /// `onEvent` answered `false`.
    var stopped: Bool { state.withLock { $0.stopped } }
    /// The head was an event stream.
    var opened: Bool { state.withLock { if case .eventStream = $0.head { true } else { false } } }

    /// How the connection ended, given the send's result.
    func outcome(of result: HTTPTransport.Result) -> ServerSentEventReconnection.Outcome {
        if case .ended(let outcome) = state.withLock({ $0.head }) { return outcome }
        switch result {
        case .success(let response):
            // (A response whose body did not stream, e.g. a redirect not followed, has its head checked here.)
            return EventStreamRequest.outcome(status: response.httpStatus, headers: response.rawHeaders,
                                              url: response.request.url.absoluteString) ?? .ended
        case .failure(let error):
            return .failed(error)
        }
    }

    func headArrived(_ head: RawResponse) -> HTTPTransportError? {
        let outcome = EventStreamRequest.outcome(status: head.statusCode, headers: head.headers, url: head.request.url.absoluteString)
        let held = state.withLock { state -> [Data] in
            state.head = outcome.map(Head.ended) ?? .eventStream
            defer { state.held = [] }
            return state.held
        }
        if case .refused(let error) = outcome { return error }
        for chunk in held where !decode(chunk) { return stopError(head.request.url.absoluteString) }
        return nil
    }

    func receive(_ chunk: Data, evenIfFull: Bool) -> StreamingAnswer {
        let checked = state.withLock { state -> Bool in
            state.received = true
            guard case .awaited = state.head else { return true }
            state.held.append(chunk)
            return false
        }
        guard checked else { return .more }
        return decode(chunk) ? .more : .stop
    }

    /// Decodes `chunk` and hands its events over; `false` when `onEvent` said stop.
    private func decode(_ chunk: Data) -> Bool {
        let (events, overlong) = state.withLock { state in
            let events = state.decoder.decode(chunk)
            if !events.isEmpty { state.deliveredEvents = true }
            return (events, state.decoder.isOverlong)
        }
        for event in events where !onEvent(event) {
            state.withLock { $0.stopped = true }
            return false
        }
        if overlong {
            // Ends without reconnecting: the server would send the same again.
            state.withLock { $0.head = .ended(.refused(ServerSentEventDecoder.overlongError(url: nil))) }
            return false
        }
        return true
    }

    private func stopError(_ url: String) -> HTTPTransportError {
        HTTPTransportError(code: .cancelled, message: "The event handler stopped the stream.", url: url)
    }

    var wantsMore: Bool { true }
    func setWaker(_ waker: (@Sendable () -> Void)?) {}
    /// Once a byte was taken a retry would read the body again into a decoder midway.
    var isCommitted: Bool { state.withLock { $0.received } }
}
