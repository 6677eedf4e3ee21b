import CCurl
import Foundation

/// Where a transfer's response body goes: into memory (`MemoryBody`, the default), into a
/// file (`DownloadFile`, `downloading(to:)`) or to a streaming consumer (`StreamReceiver`,
/// `streaming(_:)`, `HTTPTransport.stream(_:)`). The transfer hands its sink the final
/// response's head, then every chunk of the body, and the sink answers whether to go on,
/// pause or abort (as swift-corelibs-foundation's `_EasyHandleDelegate.didReceive(data:)`
/// does). The rules of each destination (the size cap, the download file's rules, a stream's
/// buffer) live in its sink, not in the transfer.
protocol BodySink: AnyObject {
    /// The final response's head arrived (status 200 or more); an error ends the transfer. A
    /// sink that needs the headers reads them (`state.headers`, a copy: most sinks need none).
    func begin(status: Int, state: TransferState) -> HTTPTransportError?
    /// A chunk of the body. On `.abort` the sink has stored why in `state.storedError`, unless
    /// it ended the body on purpose (`MemoryBody.cutShort`).
    func receive(_ bytes: UnsafeRawBufferPointer, state: TransferState) -> BodyAnswer
    /// Whether the sink decodes a coded body itself (a stream, which decodes no faster than it
    /// is read); any other sink gets the body decoded (`TransferState+ContentDecoding.swift`).
    var decodesContent: Bool { get }
}

extension BodySink {
    var decodesContent: Bool { false }
}

/// What a sink says to a chunk of the body.
enum BodyAnswer {
    /// Taken: go on.
    case proceed
    /// Not taken: pause the transfer until the sink's consumer wants more (a stream).
    case pause
    /// End the transfer.
    case abort
}

/// The body in memory: malloc'd, grown by `realloc`, handed over as `Data` without a copy by
/// `take()`. Within the session's `maxResponseSize`; a kept body may also be cut at `cut`
/// (a stream's error body: the rest is not needed, so the transfer ends there on purpose).
///
/// The bytes and the figures the rules need live in C (`ccurl_body`), which a handle's C write
/// callback appends to by itself while this sink takes the transfer's body and the bytes stay
/// within the limit and the cut (`takesBody`, the fast path: no Swift per chunk); everything
/// else comes here (`receive`, the plain path, which appends with the same C function).
final class MemoryBody: BodySink {
    private let body: UnsafeMutablePointer<ccurl_body>
    /// The body reached `cut` and the transfer was ended there.
    @exclusivity(unchecked) private(set) var cutShort = false

    init(limit: Int64) {
        body = .allocate(capacity: 1)
        body.initialize(to: ccurl_body())
        body.pointee.limit = curl_off_t(limit)
        body.pointee.cut = .max
    }

    deinit {
        free(body.pointee.bytes)
        body.deallocate()
    }

    /// The body the handle's write callback appends to (its transfer state's sink's).
    var bodyPointer: UnsafeMutablePointer<ccurl_body> { body }

    /// The session's `maxResponseSize`: more fails with `.responseTooLarge`.
    var limit: Int64 {
        get { Int64(body.pointee.limit) }
        set { body.pointee.limit = curl_off_t(newValue) }
    }
    /// Where a kept body is cut short (no limit by default).
    var cut: Int64 {
        get { Int64(body.pointee.cut) }
        set { body.pointee.cut = curl_off_t(newValue) }
    }
    /// Whether the handle's write callback appends the transfer's body here itself: the body
    /// goes to this sink and nothing failed (`TransferState` keeps it so).
    var takesBody: Bool {
        get { body.pointee.takes_body != 0 }
        set { body.pointee.takes_body = newValue ? 1 : 0 }
    }
    /// The bytes held.
    var count: Int { body.pointee.count }
    /// The memory reserved.
    var capacity: Int { body.pointee.capacity }

    /// Empty again, for the next transfer (a body nobody took is freed).
    func reset() {
        if let bytes = body.pointee.bytes {
            free(bytes)
            body.pointee.bytes = nil
        }
        body.pointee.count = 0
        body.pointee.capacity = 0
        body.pointee.received = 0
        body.pointee.cut = .max
        body.pointee.takes_body = 0
        cutShort = false
    }

    /// The final head arrived: room for the body it declares, within bounds (see `expect`).
    /// (A handle's C header callback does this itself while the sink takes the body.)
    func begin(status: Int, state: TransferState) -> HTTPTransportError? {
        if let length = state.declaredContentLength { expect(length: length) }
        return nil
    }

    func receive(_ chunk: UnsafeRawBufferPointer, state: TransferState) -> BodyAnswer {
        let room = max(0, cut - Int64(body.pointee.received))
        guard Int64(chunk.count) <= room else {
            // Keep what fits, then end the transfer on purpose.
            guard receive(UnsafeRawBufferPointer(rebasing: chunk[0..<Int(room)]), state: state) == .proceed else { return .abort }
            cutShort = true
            return .abort
        }
        body.pointee.received += curl_off_t(chunk.count)
        let received = Int64(body.pointee.received)
        if received > limit {
            state.storedError = HTTPTransportError(
                code: .responseTooLarge, message: "The response body passed the session's limit of \(limit) bytes.",
                url: state.requestURL, httpStatusCode: state.statusCode.map(HTTPStatusCode.init(rawValue:)),
                responseHeaders: state.headers)
            return .abort
        }
        guard ccurl_body_append(body, chunk.baseAddress?.assumingMemoryBound(to: CChar.self), chunk.count) != 0 else {
            state.storedError = HTTPTransportError(
                code: .responseTooLarge, message: "No memory for a response body of \(received) bytes.",
                url: state.requestURL, httpStatusCode: state.statusCode.map(HTTPStatusCode.init(rawValue:)),
                responseHeaders: state.headers)
            return .abort
        }
        return .proceed
    }

    /// A declared `Content-Length` is a promise the server need not keep: only a small part of
    /// it is reserved up front (a hostile 100 MB declaration reserves 256 KiB), the rest grows
    /// as the bytes arrive.
    func expect(length: Int64) {
        ccurl_body_expect(body, curl_off_t(length))
    }

    /// The body as `Data`, which takes over the memory (none is kept here).
    func take() -> Data {
        let count = body.pointee.count
        guard var taken = body.pointee.bytes, count > 0 else { return Data() }
        // A grown buffer gives back its unused tail (in place), so kept responses hold no slack.
        if body.pointee.capacity - count > 4096, let shrunk = realloc(taken, count) {
            taken = shrunk.assumingMemoryBound(to: UInt8.self)
        }
        body.pointee.bytes = nil
        body.pointee.count = 0
        body.pointee.capacity = 0
        return Data(bytesNoCopy: taken, count: count, deallocator: .free)
    }
}

/// The engine's side of a streamed body, for one transfer: whether this response's body
/// streams (a redirect's or a failed status's does not), and what the transfer driver needs to
/// pause, resume and time the stream. Touched only by the thread that performs the transfer.
final class StreamReceiver: BodySink {
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
    /// The write callback paused the transfer (the consumer's buffer was full).
    var isPaused = false
    /// The last time a body byte arrived (or the transfer resumed).
    var lastActivity = ContinuousClock.now
    /// The body's content decoding, done here a piece at a time (StreamReceiver+Decoding.swift).
    var decoder: ContentDecoder?
    var decodesContent: Bool { true }
    /// Bytes at the start of the next chunk that were decoded already (libcurl hands a chunk
    /// refused with a pause again, from its start).
    var decodedAhead = 0
    /// Where decoded bytes land before they join `pending` or the kept body (a coded body's only).
    var decodeBuffer: UnsafeMutableRawBufferPointer?

    init(body: StreamingBody, headTimeout: TimeInterval, stallTimeout: TimeInterval) {
        self.body = body
        self.headTimeout = .milliseconds(CurlEngine.milliseconds(headTimeout))
        self.stallTimeout = .milliseconds(CurlEngine.milliseconds(stallTimeout))
    }

    deinit {
        decodeBuffer?.deallocate()
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

    func receive(_ bytes: UnsafeRawBufferPointer, state: TransferState) -> BodyAnswer {
        if let decoder { return receiveCoded(bytes, decoder: decoder, state: state) }
        return streamsBody ? deliver(bytes, state: state) : state.memory.receive(bytes, state: state)
    }

    /// A chunk for the consumer: the write callback's return value. libcurl hands over at most
    /// 16 KiB at a time; they are gathered into pieces of up to `pieceSize` (fewer hand-overs to
    /// another thread), and what a round of the driver gathered goes out at its end
    /// (`flushPending`), so nothing waits for more data to arrive.
    private func deliver(_ bytes: UnsafeRawBufferPointer, state: TransferState) -> BodyAnswer {
        if !pending.isEmpty, pending.count + bytes.count > Self.pieceSize {
            switch body.consumer.receive(pending, evenIfFull: false) {
            case .more:
                pending = Data()
            case .pause:
                isPaused = true
                return .pause
            case .stop:
                pending = Data()
                stopped(state)
                return .abort
            }
        }
        if pending.isEmpty { pending.reserveCapacity(Self.pieceSize) }
        pending.append(contentsOf: bytes)
        lastActivity = .now
        return .proceed
    }

    /// Hands the bytes a round gathered to the consumer, within its buffer: a full buffer pauses
    /// the transfer here instead (on the thread that performs it, between rounds) and the bytes
    /// wait for the resume, so a slow consumer's buffer stays bounded however the bytes arrive.
    /// When the transfer has ended (`final`) they go in whatever the buffer holds (at most one
    /// piece more). `false` when the consumer stopped the transfer.
    func flushPending(_ state: TransferState, handle: EasyHandle, final: Bool = false) -> Bool {
        guard !pending.isEmpty, state.storedError == nil else { return state.storedError == nil }
        switch body.consumer.receive(pending, evenIfFull: final) {
        case .more:
            pending = Data()
            return true
        case .pause:
            if !isPaused {
                isPaused = true
                _ = ccurl_pause_receive(handle.curl)
            }
            return true
        case .stop:
            pending = Data()
            stopped(state)
            return false
        }
    }

    func stopped(_ state: TransferState) {
        if state.storedError == nil {
            state.storedError = HTTPTransportError(code: .cancelled, message: "The streaming handler stopped the transfer.",
                                                   url: state.requestURL)
        }
    }

    /// The most bytes gathered before they go to the consumer.
    static let pieceSize = 64 * 1024
    /// Bytes taken from libcurl (decoded, for a coded body) and not yet handed to the consumer.
    var pending = Data()

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
        return max(.milliseconds(1), min(.seconds(1), until))
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%g s", value)
    }
}
