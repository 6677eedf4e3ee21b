/// What happens in one send, for whoever records it (the telemetry's spans and metrics): the
/// hop step tells it when each hop starts (before the request interceptors), when its request
/// leaves (after them), when it ends or fails, and the first step when the send ends; the
/// per-origin step tells it its waits and refusals. The core knows the telemetry only
/// through this protocol.
protocol SendObserver: AnyObject {
    /// A hop starts, before the request interceptors (it may set the request's `requestID`).
    func hopStarted(_ request: inout RawRequest)
    /// The hop's request is about to go below, after the interceptors (trace headers go in).
    func hopWillSend(_ request: inout RawRequest)
    /// The exchange below answered the hop (or failed it: `response.error`).
    func hopEnded(_ response: RawResponse)
    /// The hop ended before anything was sent (a request interceptor threw).
    func hopFailed(_ error: HTTPTransportError)
    /// The hop waited `seconds` for its origin's turn (`reason`: `rate_limit` or `retry_after`).
    func originWaited(seconds: Double, reason: String)
    /// The origin's open circuit refused the hop: nothing was sent.
    func circuitRefused(host: String, port: Int)
    /// The send is over.
    func sendEnded(_ result: HTTPTransport.Result)
}

/// Makes each send's observer: a session's telemetry, when it records any.
protocol SendObserving: Sendable {
    /// The observer of a send that starts now, or nil when nothing is recorded.
    func observer() -> (any SendObserver)?
}

/// The events of one send, told to its observer; with none, every call returns at once.
struct SendEvents {
    let observer: (any SendObserver)?

    init(_ observer: (any SendObserver)?) { self.observer = observer }

    /// Whether anything records this send.
    var isRecording: Bool { observer != nil }

    func hopStarted(_ request: inout RawRequest) { observer?.hopStarted(&request) }
    func hopWillSend(_ request: inout RawRequest) { observer?.hopWillSend(&request) }
    func hopEnded(_ response: RawResponse) { observer?.hopEnded(response) }
    func hopFailed(_ error: HTTPTransportError) { observer?.hopFailed(error) }
    func originWaited(seconds: Double, reason: String) { observer?.originWaited(seconds: seconds, reason: reason) }
    func circuitRefused(host: String, port: Int) { observer?.circuitRefused(host: host, port: port) }
    func sendEnded(_ result: HTTPTransport.Result) { observer?.sendEnded(result) }
}
