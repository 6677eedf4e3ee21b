import Foundation

/// The engine's side of a streamed body, for one transfer: the sink a `StreamingBody` makes
/// (`ResponseBodyConsumer`). Whether this response's body streams (a redirect's or a failed
/// status's does not), and what the transfer driver needs to pause, resume and time the stream
/// (`PacedBodySink`). Touched only by the thread that performs the transfer.
final class StreamReceiver: PacedBodySink {
    let body: StreamingBody
    /// The request's time-out: it bounds the wait for the head only.
    let headTimeout: Duration
    /// A stream silent, or left unread by its consumer, for this long fails with `.timeout`.
    let stallTimeout: Duration
    /// The final response head arrived (status 200 or more).
    private(set) var headSeen = false
    /// This response's body goes to the consumer.
    private(set) var streamsBody = false
    /// The consumer was told about the head.
    var announced = false
    /// Whether a round's end wakes the reader (`drive`); it also counts the round's bytes.
    @exclusivity(unchecked) var roundWake = StreamRoundWake()
    // (The transfer's thread alone touches what follows: no exclusivity checks on each chunk.)
    /// The write callback paused the transfer (the consumer's buffer was full).
    @exclusivity(unchecked) var isPaused = false
    /// The last round in which a body byte arrived (or the transfer resumed): read once a round
    /// (`drive`), not on each chunk.
    @exclusivity(unchecked) var lastActivity = ContinuousClock.now
    /// The body's content decoding, done here a piece at a time (StreamReceiver+Decoding.swift).
    var decoder: ContentDecoder?
    var decodesContent: Bool { true }
    /// Bytes at the start of the next chunk that were decoded already (libcurl hands a chunk
    /// refused with a pause again, from its start).
    var decodedAhead = 0
    /// Where decoded bytes land before they join the kept body (a coded body that does not stream;
    /// a streamed one is decoded straight into `pending`).
    var decodeBuffer: UnsafeMutableRawBufferPointer?

    init(body: StreamingBody, headTimeout: TimeInterval, stallTimeout: TimeInterval) {
        self.body = body
        self.headTimeout = .milliseconds(CurlEngine.milliseconds(headTimeout))
        self.stallTimeout = .milliseconds(CurlEngine.milliseconds(stallTimeout))
    }

    deinit {
        decodeBuffer?.deallocate()
        pending.release()
    }

    /// The head of the final response arrived. A body that does not stream is kept in memory:
    /// a redirect's whole (within the session's `maxResponseSize`), an error's first 64 KiB.
    func begin(status: Int, state: TransferState) -> HTTPTransportError? {
        headSeen = true
        lastActivity = .now
        streamsBody = body.streams(status: status, headers: state.headers)
        if !streamsBody, !(200..<300).contains(status), !RedirectRule.isRedirect(status) {
            state.memory.cut = Int64(StreamingBody.errorBodyLimit)
        }
        do {
            // (Once: the blank line ending chunked trailers must not bring a fresh decoder.)
            if decoder == nil {
                decoder = try ContentDecoder.make(contentEncoding: state.headers.values("Content-Encoding"), url: state.requestURL)
            }
        } catch {
            return error
        }
        return nil
    }

    var paced: (any PacedBodySink)? { self }

    /// A streamed body was handed over as it came: the response has none.
    func complete(state: TransferState) -> BodyOutcome { streamsBody ? .delivered : .inMemory }

    func setWaker(_ waker: (@Sendable () -> Void)?) { body.consumer.setWaker(waker) }

    func receive(_ bytes: UnsafeRawBufferPointer, state: TransferState) -> BodyAnswer {
        roundWake.add(bytes.count)
        if let decoder { return receiveCoded(bytes, decoder: decoder, state: state) }
        return streamsBody ? deliver(bytes, state: state) : state.memory.receive(bytes, state: state)
    }

    /// A chunk for the consumer: the write callback's return value. libcurl hands over at most
    /// its receive buffer at a time; the chunks are gathered into pieces of `pieceSize` (fewer
    /// hand-overs to another thread), and what a round of the driver gathered goes out at its end
    /// (`flushPending`), so nothing waits for more data to arrive. A chunk is taken whole or not
    /// at all (a refused one libcurl hands again, whole, on resume).
    private func deliver(_ bytes: UnsafeRawBufferPointer, state: TransferState) -> BodyAnswer {
        if !pending.isEmpty, bytes.count > pending.room, let answer = offerPending(state) { return answer }
        if bytes.count > pending.room {
            // (Larger than a piece: libcurl's buffer is not, `CurlEngine.receiveBufferSize`.)
            switch body.consumer.receive(Data(bytes), evenIfFull: false) {
            case .more: break
            case .pause:
                isPaused = true
                return .pause
            case .stop:
                stopped(state)
                return .abort
            }
        } else {
            pending.append(bytes)
        }
        return .proceed
    }

    /// Offers the piece gathered so far from within the write callback: nil when the consumer
    /// took it, else the callback's answer (a pause, or the end).
    func offerPending(_ state: TransferState) -> BodyAnswer? {
        switch body.consumer.receive(pending.data(), evenIfFull: false) {
        case .more:
            pending.clear()
            return nil
        case .pause:
            isPaused = true
            return .pause
        case .stop:
            pending.clear()
            stopped(state)
            return .abort
        }
    }

    /// Hands the bytes a round gathered to the consumer, within its buffer: a full buffer pauses
    /// the transfer here instead (on the thread that performs it, between rounds) and the bytes
    /// wait for the resume, so a slow consumer's buffer stays bounded however the bytes arrive.
    /// When the transfer has ended (`final`) they go in whatever the buffer holds (at most one
    /// piece more). `false` when the consumer stopped the transfer.
    func flushPending(_ state: TransferState, handle: EasyHandle, final: Bool = false) -> Bool {
        let flushed = flush(state, handle: handle, final: final)
        // At the end, a wake-up the last round put off goes out too: no round's end follows, and
        // the reader would otherwise see the last bytes only when the stream's end reaches it.
        if final, roundWake.isPutOff { body.consumer.handedOver() }
        return flushed
    }

    private func flush(_ state: TransferState, handle: EasyHandle, final: Bool) -> Bool {
        guard !pending.isEmpty, state.storedError == nil else { return state.storedError == nil }
        switch body.consumer.receive(pending.data(), evenIfFull: final) {
        case .more:
            pending.clear()
            return true
        case .pause:
            if !isPaused {
                isPaused = true
                handle.pauseReceiving()
            }
            return true
        case .stop:
            pending.clear()
            stopped(state)
            return false
        }
    }

    /// The stream's turn between polls: tell the consumer about the head, hand it what this
    /// round gathered, end a stream past its time-outs, resume a paused one the consumer drained.
    func drive(_ turn: SinkTurn) -> SinkStop? {
        let state = turn.state
        if roundWake.hasArrivals { lastActivity = .now }
        if streamsBody, !announced, state.storedError == nil {
            announced = true
            var head = turn.head()
            head.metrics.redirectCount = body.redirects
            if let error = body.consumer.headArrived(head) {
                state.storedError = error
                return .aborted
            }
        }
        guard flushPending(state, handle: turn.handle) else { return .aborted }
        if state.storedError == nil, let error = expired(at: .now, started: turn.started, url: state.requestURL) {
            state.storedError = error
            return .timedOut
        }
        // (The look comes after the hand-over above, and re-arms the consumer's wake-up.)
        if isPaused, body.consumer.resume() {
            // (Unpausing hands the held chunk to the write callback at once, which may pause again.)
            isPaused = false
            lastActivity = .now
            turn.resumeTransfer()
            guard flushPending(state, handle: turn.handle) else { return .aborted }
        }
        if roundWake.roundEnded() { body.consumer.handedOver() }
        return nil
    }

    func stopped(_ state: TransferState) {
        if state.storedError == nil {
            state.storedError = HTTPTransportError(code: .cancelled, message: "The streaming handler stopped the transfer.",
                                                   url: state.requestURL)
        }
    }

    /// The most bytes gathered before they go to the consumer.
    static let pieceSize = 64 * 1024
    /// Bytes taken from libcurl (decoded, for a coded body) and not yet handed to the consumer,
    /// in memory the stream's pieces share (`PiecePool`): as many as its buffer holds, a piece
    /// being gathered and the consumer's last are in flight at once.
    @exclusivity(unchecked) var pending = StreamPiece(pool: PiecePool(size: pieceSize, kept: StreamBuffer.defaultLimit / pieceSize + 2))

    /// Why the transfer must end now, if it must: no head within the request's time-out, or
    /// a silent stream past the stall time-out.
    func expired(at now: ContinuousClock.Instant, started: ContinuousClock.Instant, url: String) -> HTTPTransportError? {
        if !headSeen, now - started >= headTimeout {
            return HTTPTransportError(code: .timeout, message: "No response head arrived within the request's time-out of \(Self.seconds(headTimeout)).",
                                      url: url)
        }
        if headSeen, now - lastMoved >= stallTimeout {
            let message = isPaused
                ? "The stream was not read for \(Self.seconds(stallTimeout)) (the session's stallTimeout, 60 s when it sets none): a stream its reader leaves gives its place back."
                : "The stream was silent for \(Self.seconds(stallTimeout)) (the session's stallTimeout, 60 s when it sets none)."
            return HTTPTransportError(code: .timeout, message: message, url: url)
        }
        return nil
    }

    /// The last time the stream moved: a body byte arrived, or (while paused) the consumer took
    /// a chunk. A paused stream nobody reads is as dead as a silent one: it would hold its place
    /// among the session's transfers, and its connection, for ever.
    private var lastMoved: ContinuousClock.Instant {
        guard isPaused, let taken = body.consumer.lastTaken else { return lastActivity }
        return max(lastActivity, taken)
    }

    /// How long the driver may wait before `expired` must be asked again.
    func nextCheck(at now: ContinuousClock.Instant, started: ContinuousClock.Instant) -> Duration {
        let until = headSeen ? lastMoved + stallTimeout - now : started + headTimeout - now
        let check = max(.milliseconds(1), min(.seconds(1), until))
        return roundWake.isPutOff ? min(check, StreamRoundWake.putOffAtMost) : check
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%g s", value)
    }
}
