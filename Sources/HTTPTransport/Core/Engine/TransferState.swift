import CCurl
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The mutable state of a transfer, reached from libcurl's callbacks through an unretained
/// pointer. Each easy handle has one (`EasyHandle.transferState`), which serves the handle's
/// transfers in turn: `begin` readies it for a transfer, `end` frees what the transfer used
/// and lets go of what it referred to, so a handle idle in the pool holds nothing of it (and
/// no object is made per transfer).
///
/// Only the thread performing the transfer touches it (libcurl calls back on that thread, and
/// a handle is used by one thread at a time), so its stored properties opt out of the
/// runtime's exclusivity bookkeeping, which otherwise costs a thread-local lookup on every
/// header line and body chunk.
final class TransferState {
    @exclusivity(unchecked) private(set) var control: TransferControl
    @exclusivity(unchecked) private(set) var requestURL: String
    /// The handle the transfer runs on, for the one option a response header changes
    /// (`CURLOPT_HTTP_CONTENT_DECODING`); nil in tests that feed header lines directly.
    /// (Unowned: the handle owns its state.)
    @exclusivity(unchecked) private unowned(unsafe) var handle: EasyHandle?

    // Response
    /// The head of the response being received, which the handle's C header callback reads
    /// every line into (`ccurl_header_callback`).
    private let head: UnsafeMutablePointer<ccurl_response_head>
    /// The current response's status, once its status line arrived.
    var statusCode: Int? { head.pointee.status >= 0 ? head.pointee.status : nil }
    /// `true` once the blank line ending the (final) header block arrived.
    var headersComplete: Bool { head.pointee.complete != 0 }
    /// The body length the final response's head declared (`Content-Length`), if it is a number.
    var declaredContentLength: Int64? { head.pointee.content_length >= 0 ? Int64(head.pointee.content_length) : nil }
    /// The headers received so far (a copy of the lines: later lines do not change them).
    var headers: HTTPHeaders {
        let lines = head.pointee.lines
        return HTTPHeaders(received: ReceivedHeaderLines(copying: UnsafeRawBufferPointer(start: lines.bytes, count: lines.count),
                                                         hasFold: lines.has_fold != 0))
    }
    /// Set by a callback that aborted the transfer; reported instead of libcurl's code. (The C
    /// write callback takes no more bytes once it is set.)
    @exclusivity(unchecked) var storedError: HTTPTransportError? {
        didSet { if storedError != nil { memory.takesBody = false } }
    }

    /// The body in memory: the response's, unless it goes to a file or streams, and then the
    /// kept body of a response whose body does not (an error's, a redirect's).
    let memory: MemoryBody
    /// Where the body goes (`BodySink`): `memory` unless the transfer set another (a download's
    /// file, a stream's receiver). The C write callback appends the body itself only while this
    /// is the memory sink and nothing failed.
    @exclusivity(unchecked) var sink: any BodySink {
        didSet {
            pacedSink = sink.paced
            memory.takesBody = sink === memory && storedError == nil
        }
    }
    /// The sink, when the transfer driver paces it (`PacedBodySink`: a stream).
    @exclusivity(unchecked) private(set) var pacedSink: (any PacedBodySink)?
    /// The decoder of a coded body going to memory or a file (a stream decodes its own).
    @exclusivity(unchecked) var bodyDecoder: ContentDecoder?
    @exclusivity(unchecked) private var lastProgressReport: ContinuousClock.Instant?

    // Upload
    /// Where the request body comes from (`BodySource`), when libcurl reads one.
    @exclusivity(unchecked) var source: (any BodySource)?
    /// The body produced while it is sent, when it is (never rewound).
    var upload: StreamedUpload? { source?.streamed }

    // Resending (RequestResend.swift)
    /// Whether libcurl may send the request again on a fresh connection (idempotent methods).
    @exclusivity(unchecked) var mayResend = true
    /// Requests libcurl started for this transfer: more than one is a resend.
    @exclusivity(unchecked) var requestsStarted = 0

    // C resources of the transfer, freed with it
    /// The handshake's certificate-pin check (`CURLOPT_SSL_CTX_DATA`).
    @exclusivity(unchecked) var pinCheck: PinCheck?

    /// A state with a response head and a body in memory of its own, which a handle's C callbacks
    /// fill when it is the handle's (`EasyHandle.transferState`; the handle's callback slot
    /// points at them, and lives no longer than the handle, which owns this state).
    init() {
        control = TransferControl()
        requestURL = ""
        memory = MemoryBody(limit: 0)
        sink = memory
        head = .allocate(capacity: 1)
        head.initialize(to: ccurl_response_head())
        ccurl_response_head_clear(head)
    }

    /// A state for one transfer, begun, without a handle (tests that feed it lines and chunks).
    convenience init(maxResponseSize: Int64, control: TransferControl, requestURL: String) {
        self.init()
        begin(control: control, requestURL: requestURL, maxResponseSize: maxResponseSize)
    }

    /// The response head the handle's header callback reads lines into.
    var headPointer: UnsafeMutablePointer<ccurl_response_head> { head }

    /// Binds a handle's own state to it (`EasyHandle.init`, once).
    func belongs(to handle: EasyHandle) { self.handle = handle }

    /// Readies the state for a transfer: its controls, its URL (for errors), its body limit, an
    /// empty head. Everything else is as `end` (or `init`) left it.
    func begin(control: TransferControl, requestURL: String, maxResponseSize: Int64) {
        // (`end` left the controls empty, and the URL is often the last transfer's again.)
        if control.isSet { self.control = control }
        if requestURL != self.requestURL { self.requestURL = requestURL }
        memory.limit = maxResponseSize
        memory.takesBody = true
        ccurl_response_head_clear(head)
    }

    /// The transfer is over (`CurlEngine.finish`): its file and MIME body are closed, a body
    /// nobody took is dropped (a small buffer is kept for the next, `MemoryBody.keptCapacity`),
    /// and every reference it made is let go, so the state is as new.
    func end() {
        // (Each field is reset only when the transfer set it: most transfers set few.)
        if storedError != nil { storedError = nil }
        if sink !== memory { sink = memory }
        if bodyDecoder != nil { bodyDecoder = nil }
        if let source {
            source.close()
            self.source = nil
        }
        mayResend = true
        requestsStarted = 0
        if pinCheck != nil { pinCheck = nil }
        if control.isSet {
            control = TransferControl()
            lastProgressReport = nil  // (set only for a progress handler)
        }
        memory.reset()
    }

    deinit {
        ccurl_header_lines_free(&head.pointee.lines)
        head.deallocate()
        source?.close()
    }

    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Runs `body` on the state in the handle's slot (`EasyHandle.transferSlot`) that libcurl
    /// passes to a callback, without retaining it (the sending thread holds it for the whole
    /// transfer); `fallback` when there is none.
    @inline(__always)
    static func with<T>(_ slot: UnsafeMutableRawPointer?, or fallback: T, _ body: (TransferState) -> T) -> T {
        guard let pointer = slot?.load(as: UnsafeMutableRawPointer?.self) else { return fallback }
        return Unmanaged<TransferState>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    // MARK: Headers

    /// One header line, as libcurl hands it over, read into the response head in C
    /// (`ccurl_response_head_receive`: the status line, the block's lines, where the blocks
    /// stand, the declared length), then what the line asks of the transfer (`headLineAsks`).
    /// libcurl's header callback is C's `ccurl_header_callback`, which does the same and calls
    /// Swift only for a line that asks something: this is the way in without a handle.
    ///
    /// Why not `curl_easy_header`/`curl_easy_nextheader` after the transfer: libcurl 7.88 counts
    /// the headers of the same name on every `curl_easy_nextheader` call, so reading them all
    /// that way costs more than the callback, and more the more headers there are (the
    /// Performance article has the measurement).
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        _ = ccurl_response_head_receive(head, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
        headLineAsks(bytes)
    }

    /// Acts on what the last header line asked (`ccurl_response_head.action`): the final head
    /// is complete, so the body's sink begins; or a final response's `Content-Encoding`, whose
    /// body the engine decodes (`TransferState+ContentDecoding.swift`), so it cannot go to memory
    /// by the C write callback alone.
    func headLineAsks(_ bytes: UnsafeRawBufferPointer) {
        switch Int(head.pointee.action) {
        case CCURL_HEAD_LINE_ENDS_FINAL_HEAD:
            if let status = statusCode { beginBody(status: status) }
        case CCURL_HEAD_LINE_CONTENT_ENCODING:
            memory.takesBody = false
        default:
            break
        }
    }

    /// The most a declared `Content-Length` makes the state reserve before the body arrives.
    static let declaredLengthReservation = Int64(CCURL_DECLARED_LENGTH_RESERVATION)

    // MARK: Body

    /// The final response's head arrived: the sink learns its status, and a coded body gets its
    /// decoder (unless its sink decodes it itself).
    private func beginBody(status: Int) {
        if let error = sink.begin(status: status, state: self) {
            storedError = error
        } else if !memory.takesBody, !sink.decodesContent {
            beginDecoding()
        }
    }

    /// A chunk of the body for the sink. Returns the number of bytes taken (or libcurl's pause
    /// value); anything else makes libcurl abort.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if storedError != nil { return 0 }
        if let bodyDecoder { return receiveDecoded(bytes, decoder: bodyDecoder) }
        switch sink.receive(bytes, state: self) {
        case .proceed: return bytes.count
        case .pause: return ccurl_writefunc_pause()
        case .abort: return 0
        }
    }

    /// Whether any body byte arrived in memory.
    var hasBody: Bool { memory.count > 0 }

    /// The body in memory as `Data`, which takes over the memory.
    func takeBody() -> Data { memory.take() }

    /// The memory reserved for the body so far.
    var bodyCapacity: Int { memory.capacity }

    // MARK: Upload

    /// The next bytes of the request body, from its source (`BodySource`).
    func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        source?.read(into: buffer, state: self) ?? 0
    }

    /// Rewinds the upload (libcurl retries a request on a fresh connection when a reused one died).
    func seekBody(to offset: Int64) -> Bool {
        source?.seek(to: offset) ?? (offset == 0)
    }

    // MARK: Progress

    /// The transfer ends because it was cancelled: says so, unless something already said why
    /// it ended; the code for libcurl.
    func cancelled() -> CURLcode {
        if storedError == nil {
            storedError = HTTPTransportError(code: .cancelled, message: "The transfer was cancelled.", url: requestURL)
        }
        return CURLE_ABORTED_BY_CALLBACK
    }

    func progress(downloadTotal: Int64, downloadNow: Int64, uploadTotal: Int64, uploadNow: Int64, final: Bool = false) -> Bool {
        if let cancellation = control.cancellation, cancellation.isCancelled {
            storedError = HTTPTransportError(code: .cancelled, message: "The transfer was cancelled.", url: requestURL)
            return false
        }
        if let progress = control.progress {
            // Throttled: at most every 100 ms, plus a last report when the transfer is done.
            let now = ContinuousClock.now
            if !final, let last = lastProgressReport, now - last < .milliseconds(100) { return true }
            lastProgressReport = now
            let report = TransferProgress(
                bytesSent: upload.map { min(uploadNow, $0.sent) } ?? uploadNow, totalBytesToSend: uploadTotal > 0 ? uploadTotal : nil,
                bytesReceived: downloadNow, totalBytesToReceive: downloadTotal > 0 ? downloadTotal : nil)
            if !progress(report) {
                storedError = HTTPTransportError(code: .cancelled, message: "The progress handler cancelled the transfer.",
                                                 url: requestURL)
                return false
            }
        }
        return true
    }
}

// MARK: - C callbacks

/// The chunks `ccurl_write_callback` hands on: a body that does not go to memory, one past the
/// memory sink's limit or cut, or any chunk when no transfer is running (aborts).
let curlWriteCallback: ccurl_data_callback = { buffer, size, count, userdata in
    TransferState.with(userdata, or: 0) { $0.receiveBody(UnsafeRawBufferPointer(start: buffer, count: size * count)) }
}

/// The lines `ccurl_header_callback` hands on: one that asks something of the transfer (it read
/// the line into the head already), or any line when no transfer is running (aborts).
let curlHeaderCallback: ccurl_data_callback = { buffer, size, count, userdata in
    TransferState.with(userdata, or: 0) { state in
        state.headLineAsks(UnsafeRawBufferPointer(start: buffer, count: size * count))
        return size * count
    }
}

let curlReadCallback: ccurl_data_callback = { buffer, size, count, userdata in
    TransferState.with(userdata, or: ccurl_readfunc_abort()) {
        $0.readBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
    }
}

let curlSeekCallback: ccurl_seek_callback = { userdata, offset, origin in
    guard origin == SEEK_SET else { return 2 }  // CURL_SEEKFUNC_CANTSEEK
    return TransferState.with(userdata, or: 2) { $0.seekBody(to: Int64(offset)) ? 0 : 1 }
}

let curlProgressCallback: ccurl_progress_callback = { userdata, downloadTotal, downloadNow, uploadTotal, uploadNow in
    TransferState.with(userdata, or: 1) {
        $0.progress(downloadTotal: Int64(downloadTotal), downloadNow: Int64(downloadNow),
                    uploadTotal: Int64(uploadTotal), uploadNow: Int64(uploadNow)) ? 0 : 1
    }
}
