import Foundation

/// What a streamed response body is handed to, on the thread that runs the transfer: the
/// closure of `streaming(_:)`, or the bounded buffer of an `HTTPResponseStream`.
protocol StreamingConsumer: AnyObject, Sendable {
    /// The head of a response whose body streams (data nil); an error stops the transfer.
    func headArrived(_ head: RawResponse) -> HTTPTransportError?
    /// The next chunk, in order. `evenIfFull` takes it whatever the buffer holds (a body an
    /// engine returned whole).
    func receive(_ chunk: Data, evenIfFull: Bool) -> StreamingAnswer
    /// The transfer's round ended: what it handed over (`receive`) may be taken now. A consumer
    /// woken by `receive` only once a few chunks wait must be woken here for the rest.
    func handedOver()
    /// Whether a paused transfer may go on (the consumer took enough).
    var wantsMore: Bool { get }
    /// The paused transfer's look, on its thread: `true` when it may go on now; when not, the
    /// consumer calls the waker once it has made room.
    func resume() -> Bool
    /// When the consumer last took a chunk (nil: it takes each as it comes, never pausing).
    var lastTaken: ContinuousClock.Instant? { get }
    /// The running transfer's wake-up (nil once it ended): taking chunks calls it, so the
    /// transfer's thread resumes a paused transfer promptly.
    func setWaker(_ waker: (@Sendable () -> Void)?)
    /// `true` once something reached the consumer's user that a retry would repeat.
    var isCommitted: Bool { get }
}

extension StreamingConsumer {
    var lastTaken: ContinuousClock.Instant? { nil }
    func resume() -> Bool { wantsMore }
    func handedOver() {}
}

/// A consumer's answer to a chunk.
enum StreamingAnswer {
    /// Taken; more may come.
    case more
    /// Not taken: the buffer is full. The transfer pauses until `wantsMore`.
    case pause
    /// Stop the transfer (`.cancelled`).
    case stop
}

/// A request's streamed body, carried like `download` from the request value through
/// resolution and the pipeline to the engine, in the request's `ResponseBodyConsumer`
/// (`StreamingBodyHook`, read and set as `RawRequest.streaming`). Equal by consumer.
struct StreamingBody: Sendable, Hashable {
    var consumer: any StreamingConsumer
    /// Whether a non-2xx status fails the send (the transport's default validation): such a
    /// body is not streamed, its first `errorBodyLimit` bytes go into the error.
    var validatesStatus = true
    /// Whether the pipeline follows redirects: a redirect's body is not streamed.
    var followsRedirects = true
    /// Redirects followed before this hop (for the head's metrics).
    var redirects = 0

    /// The most bytes of an error response's body kept for `HTTPTransportError.responseBodyData`.
    static let errorBodyLimit = 64 * 1024
    /// The stall time-out of a stream when the session sets none: a stream may last for hours,
    /// but one silent for this long is dead.
    static let defaultStallTimeout: TimeInterval = 60

    init(consumer: any StreamingConsumer) { self.consumer = consumer }

    /// Whether the body of a response with `status` goes to the consumer.
    func streams(status: Int, headers: HTTPHeaders) -> Bool {
        if (200..<300).contains(status) { return true }
        if followsRedirects, RedirectRule.isRedirect(status), headers.first("Location")?.isEmpty == false { return false }
        return !validatesStatus
    }

    /// The stall time-out of a stream on a session with `configured` (its `stallTimeout`).
    static func stallTimeout(_ configured: TimeInterval?) -> TimeInterval { configured ?? defaultStallTimeout }


    static func == (lhs: StreamingBody, rhs: StreamingBody) -> Bool {
        lhs.consumer === rhs.consumer && lhs.validatesStatus == rhs.validatesStatus
            && lhs.followsRedirects == rhs.followsRedirects
    }

    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(consumer)) }
}

/// The blocking form's consumer: every chunk goes to the handler on the sending thread.
final class ClosureConsumer: StreamingConsumer {
    private let handler: @Sendable (Data) -> Bool
    private let delivered = AtomicFlag()

    init(_ handler: @escaping @Sendable (Data) -> Bool) { self.handler = handler }

    func headArrived(_ head: RawResponse) -> HTTPTransportError? { nil }

    func receive(_ chunk: Data, evenIfFull: Bool) -> StreamingAnswer {
        delivered.set()
        return handler(chunk) ? .more : .stop
    }

    var wantsMore: Bool { true }
    func setWaker(_ waker: (@Sendable () -> Void)?) {}
    var isCommitted: Bool { delivered.isSet }
}
