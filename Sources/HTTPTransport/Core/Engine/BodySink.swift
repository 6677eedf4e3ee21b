import CCurl
import Foundation

/// Where a transfer's response body goes: into memory (`MemoryBody`, the default), into a
/// file (`DownloadFile`, `downloading(to:)`) or to a sink a request's `ResponseBodyConsumer`
/// makes (a stream's, Features/Streaming). One per transfer (`TransferState.sink`). The
/// transfer hands its sink the final response's head, then every chunk of the body, and the
/// sink answers whether to go on, pause or abort (as swift-corelibs-foundation's
/// `_EasyHandleDelegate.didReceive(data:)` does); at the end the sink says what the response
/// carries (`complete`). The rules of each destination (the size cap, the download file's
/// rules, a stream's buffer) live in its sink, not in the transfer. A sink that must be driven
/// between polls (paused, resumed, timed) is a `PacedBodySink`.
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
    /// The transfer succeeded: where the response's body is (or why it failed after all).
    func complete(state: TransferState) -> BodyOutcome
    /// The transfer failed: what the sink made (a part file) is dropped.
    func abandon()
    /// The error of a body the sink decodes itself that ended before its coded data did.
    func unfinishedDecoding(state: TransferState) -> HTTPTransportError?
    /// The sink as the transfer driver paces it, when it is one (nil: libcurl runs alone).
    var paced: (any PacedBodySink)? { get }
}

extension BodySink {
    var decodesContent: Bool { false }
    func complete(state: TransferState) -> BodyOutcome { .inMemory }
    func abandon() {}
    func unfinishedDecoding(state: TransferState) -> HTTPTransportError? { nil }
    var paced: (any PacedBodySink)? { nil }
}

/// Where a finished transfer's response body is.
enum BodyOutcome {
    /// In the transfer's memory (`TransferState.memory`): the response's `data`.
    case inMemory
    /// In this file (a download).
    case file(URL)
    /// Handed to a consumer as it came: the response has no `data`.
    case delivered
    /// The sink could not finish it (a download that could not be put in place).
    case failed(HTTPTransportError)
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

/// The body in memory: malloc'd, grown by `realloc`, made `Data` by `take()` (a small body
/// copied out of a buffer kept for the next, a large one handed over without a copy). Within the session's `maxResponseSize`; a kept body may also be cut at `cut`
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

    /// Empty again, for the next transfer: a body nobody took is dropped, and its memory freed
    /// unless it is small enough to keep for the next body (`keptCapacity`).
    func reset() {
        if let bytes = body.pointee.bytes, body.pointee.capacity > Self.keptCapacity {
            free(bytes)
            body.pointee.bytes = nil
            body.pointee.capacity = 0
        }
        body.pointee.count = 0
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

    /// The most memory a body's buffer keeps between transfers, and the largest body copied out
    /// of it (`take`) rather than handed over: most bodies in memory are small, and for them a
    /// copy into the `Data` costs less than handing the buffer over (`Data`'s deallocator to call,
    /// and a new buffer for the next body): about 250 instructions of a small GET's. A handle
    /// idle in the pool holds at most this much for it (beside libcurl's 64 KiB receive buffer).
    static let keptCapacity = 16 * 1024

    /// The body as `Data`: a copy when the buffer is small enough to keep for the next body
    /// (`keptCapacity`), else the memory itself, which the `Data` takes over. Either way the
    /// bytes are the same and this sink is empty afterwards (`MemoryBodyTests`).
    func take() -> Data {
        let count = body.pointee.count
        guard var taken = body.pointee.bytes, count > 0 else { return Data() }
        if body.pointee.capacity <= Self.keptCapacity {
            body.pointee.count = 0
            return Data(bytes: taken, count: count)
        }
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
