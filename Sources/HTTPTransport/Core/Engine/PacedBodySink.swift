import CCurl
import Foundation

/// A body sink the transfer driver paces between polls, on the thread that performs the
/// transfer: its consumer may pause the transfer and wake it again, and it times the transfer
/// itself instead of libcurl's whole-transfer time-out (a stream, which may last for hours:
/// Features/Streaming). `TransferLoop` drives it, in either mode (the session's, or inline).
protocol PacedBodySink: BodySink {
    /// The running transfer's wake-up (nil once it ended): the consumer calls it when it made
    /// room, so the driver resumes a paused transfer promptly.
    func setWaker(_ waker: (@Sendable () -> Void)?)
    /// The sink's turn between polls; nil to go on, else why the transfer ends now.
    func drive(_ turn: SinkTurn) -> SinkStop?
    /// Hands on what the sink gathered; `final` (the transfer is over) whatever the consumer's
    /// buffer holds. `false` when the consumer stopped the transfer.
    func flushPending(_ state: TransferState, handle: EasyHandle, final: Bool) -> Bool
    /// How long the driver may wait before the sink's next turn.
    func nextCheck(at now: ContinuousClock.Instant, started: ContinuousClock.Instant) -> Duration
    /// Whether the sink paused the transfer (libcurl holds what arrives meanwhile).
    var isPaused: Bool { get }
}

/// Why a paced sink ends its transfer (`PacedBodySink.drive`); the sink stored the error.
enum SinkStop {
    /// The consumer stopped it, or refused the head.
    case aborted
    /// A time-out of the sink's own passed.
    case timedOut

    var code: CURLcode { self == .aborted ? CURLE_ABORTED_BY_CALLBACK : CURLE_OPERATION_TIMEDOUT }
}

/// The transfer as a paced sink sees it on its turn: its state, the request, and what the sink
/// may ask of libcurl (the head's metrics, pausing and resuming the body).
struct SinkTurn {
    let handle: EasyHandle
    let state: TransferState
    let request: RawRequest
    /// The engine that reads the head's metrics (none in tests on a scripted multi handle).
    let engine: CurlEngine?
    /// When the transfer started (a head time-out counts from here).
    let started: ContinuousClock.Instant
    /// The loop running the transfer, which resumes it.
    let loop: TransferLoop

    /// The head received so far, as a response without a body, with the metrics known now.
    func head() -> RawResponse {
        let metrics = engine?.collectMetrics(handle, sentBody: request.sendsBody, receivedStatus: state.statusCode != nil)
            ?? TransferMetrics()
        return RawResponse(request: request, statusCode: state.statusCode.map(HTTPStatusCode.init(rawValue:)),
                           headers: state.headers, metrics: metrics)
    }

    /// Resumes the paused transfer: libcurl hands the held chunk to the write callback at once,
    /// and the loop's next poll only looks (`TransferLoop.resumed`).
    func resumeTransfer() { loop.resume(handle) }
}

extension EasyHandle {
    /// Pauses receiving (`curl_easy_pause`; the performing thread only).
    func pauseReceiving() { _ = ccurl_pause_receive(curl) }
}
