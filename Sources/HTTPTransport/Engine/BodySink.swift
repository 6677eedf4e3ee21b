import CCurl
import Foundation

/// Where a transfer's response body goes: into memory (the default), into a file
/// (`downloading(to:)`), or to a streaming consumer (`streaming(_:)`, `HTTPTransport.stream(_:)`).
enum BodySink {
    case memory
    case file(DownloadFile)
    case stream(StreamReceiver)

    var isMemory: Bool {
        if case .memory = self { return true }
        return false
    }
}

/// The engine's side of a streamed body, for one transfer: whether this response's body
/// streams (a redirect's or a failed status's does not), and what the transfer driver needs to
/// pause, resume and time the stream. Touched only by the thread that performs the transfer.
final class StreamReceiver {
    let body: StreamingBody
    /// The request's time-out: it bounds the wait for the head only.
    let headTimeout: Duration
    /// A stream silent for this long fails with `.timeout` (not counting time paused by the consumer).
    let stallTimeout: Duration
    /// The final response head arrived (status 200 or more).
    private(set) var headSeen = false
    /// This response's body goes to the consumer.
    private(set) var streamsBody = false
    /// The consumer was told about the head.
    var announced = false
    /// The write callback paused the transfer (the consumer's buffer was full).
    var isPaused = false
    /// A kept body (an error's) reached its limit: the transfer was cut there on purpose.
    var cutShort = false
    /// The most bytes of a body that does not stream kept in memory (a redirect's: all of it,
    /// within the session's `maxResponseSize`).
    private(set) var memoryLimit = Int64.max
    /// The last time a body byte arrived (or the transfer resumed).
    var lastActivity = ContinuousClock.now

    init(body: StreamingBody, headTimeout: TimeInterval, stallTimeout: TimeInterval) {
        self.body = body
        self.headTimeout = .milliseconds(CurlEngine.milliseconds(headTimeout))
        self.stallTimeout = .milliseconds(CurlEngine.milliseconds(stallTimeout))
    }

    /// The head of the final response arrived.
    func begin(status: Int, headers: HTTPHeaders) {
        headSeen = true
        lastActivity = .now
        streamsBody = body.streams(status: status, headers: headers)
        if !streamsBody, !(200..<300).contains(status), !RedirectRule.isRedirect(status) {
            memoryLimit = Int64(StreamingBody.errorBodyLimit)
        }
    }

    /// A chunk for the consumer: the write callback's return value.
    func deliver(_ bytes: UnsafeRawBufferPointer, state: TransferState) -> Int {
        switch body.consumer.receive(Data(bytes), evenIfFull: false) {
        case .more:
            lastActivity = .now
            return bytes.count
        case .pause:
            isPaused = true
            return ccurl_writefunc_pause()
        case .stop:
            state.storedError = HTTPTransportError(code: .cancelled, message: "The streaming handler stopped the transfer.",
                                                   url: state.requestURL)
            return 0
        }
    }

    /// Why the transfer must end now, if it must: no head within the request's time-out, or
    /// a silent stream past the stall time-out.
    func expired(at now: ContinuousClock.Instant, started: ContinuousClock.Instant, url: String) -> HTTPTransportError? {
        if !headSeen, now - started >= headTimeout {
            return HTTPTransportError(code: .timeout, message: "No response head arrived within the request's time-out of \(Self.seconds(headTimeout)).",
                                      url: url)
        }
        if headSeen, !isPaused, now - lastActivity >= stallTimeout {
            return HTTPTransportError(code: .timeout, message: "The stream was silent for \(Self.seconds(stallTimeout)) (the session's stallTimeout, 60 s when it sets none).",
                                      url: url)
        }
        return nil
    }

    /// How long the driver may wait before `expired` must be asked again.
    func nextCheck(at now: ContinuousClock.Instant, started: ContinuousClock.Instant) -> Duration {
        let until = headSeen ? (isPaused ? .seconds(1) : lastActivity + stallTimeout - now) : started + headTimeout - now
        return max(.milliseconds(1), min(.seconds(1), until))
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%g s", value)
    }
}
