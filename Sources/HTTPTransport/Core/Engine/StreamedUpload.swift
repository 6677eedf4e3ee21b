import CCurl
import Foundation

/// A streamed body (`StreamedBody`) as one transfer's read callback reads it, on the thread
/// that performs the transfer. A blocking send calls a producer right there, and waits for an
/// async sequence's chunks (pulled by a task) within the transfer's deadline; on the session's
/// transfer loop the source runs elsewhere (a task, or a thread of its own for a producer) and
/// the callback pauses the upload when no chunk is ready, the loop resuming it when one comes
/// (`TransferLoop.resumeUploads`). Bytes are counted against the declared length: a body of
/// another length fails with `.encodingFailed`, its last byte held back until the source
/// ended, so a longer one is caught before libcurl considers the upload done.
final class StreamedUpload {
    let body: StreamedBody
    private let deadline: ContinuousClock.Instant
    private let cancellation: CancellationHandle?
    private var pipe: UploadPipe?
    private var pump: Task<Void, Never>?
    /// The callback may not wait: it pauses the upload instead (the loop's transfers).
    private var onLoop = false
    /// Whether the read callback paused the upload (loop thread only).
    var paused = false
    private var current = Data()
    private var offset = 0
    /// The body's bytes handed to libcurl (its upload count also has a chunked body's framing).
    private(set) var sent: Int64 = 0
    private var ended = false
    private var claimed = false

    init(_ body: StreamedBody, timeout: TimeInterval, cancellation: CancellationHandle?) {
        self.body = body
        deadline = .now + .milliseconds(Int64(max(0, min(timeout, 1e9)) * 1000))
        self.cancellation = cancellation
    }

    /// Runs when a chunk comes after the callback paused (the loop's transfers).
    private var waker: (@Sendable () -> Void)?

    /// The transfer runs on the loop: the source will run off it, and `waker` runs when a chunk
    /// comes after the callback paused. The source is not touched yet: it starts at the first
    /// read, once the body is claimed, so an attempt that fails before libcurl reads anything
    /// (no connection) leaves the body unread for a retry.
    func runsOnLoop(waker: @escaping @Sendable () -> Void) {
        onLoop = true
        self.waker = waker
    }

    /// Whether a paused upload has something to send now (or its end or failure).
    var isReady: Bool { pipe?.isReady ?? true }

    @discardableResult
    private func startPipe() -> UploadPipe {
        if let pipe { return pipe }
        let pipe = UploadPipe()
        self.pipe = pipe
        if let waker { pipe.setWaker(waker) }
        switch body.source {
        case .sequence(let pull):
            pump = Task { await pull(pipe) }
        case .producer(let produce):
            let thread = Thread {
                do {
                    while let chunk = try produce() {
                        guard pipe.putWaiting(chunk) else { return }
                    }
                    pipe.finish(throwing: nil)
                } catch {
                    pipe.finish(throwing: error)
                }
            }
            thread.name = "HTTPTransport.upload"
            thread.start()
        }
        return pipe
    }

    private enum Next {
        case chunk(Data), end, notReady
        case failed(HTTPTransportError)
    }

    private func next(url: String) -> Next {
        // (A blocking send calls a producer right here; on the loop it runs off the loop's thread.)
        if pipe == nil, !onLoop, case .producer(let produce) = body.source {
            do {
                return try produce().map(Next.chunk) ?? .end
            } catch {
                return .failed(failure(error, url: url))
            }
        }
        switch startPipe().take(until: onLoop ? nil : deadline, cancellation: cancellation) {
        case .chunk(let chunk): return .chunk(chunk)
        case .end: return .end
        case .notReady: return .notReady
        case .failed(let error): return .failed(failure(error, url: url))
        case .gaveUp:
            return cancellation?.isCancelled == true
                ? .failed(HTTPTransportError(code: .cancelled, message: "The transfer was cancelled.", url: url))
                : .failed(HTTPTransportError(code: .timeout, message: "The streamed request body did not produce its next chunk in time.", url: url))
        }
    }

    private func failure(_ error: any Error, url: String) -> HTTPTransportError {
        HTTPTransportError(code: .encodingFailed, message: "The streamed request body failed: \(error)", url: url, underlyingError: error)
    }

    private func lengthFailure(_ url: String, more: Bool) -> HTTPTransportError {
        HTTPTransportError(code: .encodingFailed, message: "The streamed request body was \(more ? "longer" : "shorter") than its declared length of \(body.length ?? 0) bytes.", url: url)
    }

    /// Fills `buffer` for libcurl's read callback: the byte count, 0 at the end, libcurl's
    /// pause value, or its abort value with `state.storedError` set.
    func read(into buffer: UnsafeMutableRawBufferPointer, state: TransferState) -> Int {
        if !claimed {
            claimed = true
            guard body.claim() else {
                return fail(HTTPTransportError(code: .encodingFailed, message: "A streamed request body is sent once; this one was read already.",
                                               url: state.requestURL), state)
            }
        }
        while offset == current.count {
            if ended {
                if let length = body.length, sent != length { return fail(lengthFailure(state.requestURL, more: false), state) }
                return 0
            }
            switch next(url: state.requestURL) {
            case .chunk(let chunk): (current, offset) = (chunk, 0)
            case .end: ended = true
            case .notReady: return pause()
            case .failed(let error): return fail(error, state)
            }
        }
        let available = current.count - offset
        var count = min(buffer.count, available)
        if let length = body.length {
            if sent + Int64(available) > length { return fail(lengthFailure(state.requestURL, more: true), state) }
            // The last byte waits for the source's end, so a longer body is seen in time.
            if sent + Int64(count) == length, !ended, let held = holdsLastByte(state: state) { return held }
            count = min(count, current.count - offset)
        }
        current.withUnsafeBytes { source in
            if let base = source.baseAddress, let target = buffer.baseAddress {
                target.copyMemory(from: base + offset, byteCount: count)
            }
        }
        offset += count
        sent += Int64(count)
        return count
    }

    /// Looks past the chunk holding the last declared byte: nil when the source ended there
    /// (the byte may go), else the callback's answer (pause, or the length failure).
    private func holdsLastByte(state: TransferState) -> Int? {
        let rest = current[(current.startIndex + offset)...]
        while !ended {
            switch next(url: state.requestURL) {
            case .chunk(let chunk) where chunk.isEmpty: continue
            case .chunk: return fail(lengthFailure(state.requestURL, more: true), state)
            case .end: ended = true
            case .notReady: return pause()
            case .failed(let error): return fail(error, state)
            }
        }
        (current, offset) = (Data(rest), 0)
        return nil
    }

    private func pause() -> Int {
        paused = true
        return ccurl_readfunc_pause()
    }

    private func fail(_ error: HTTPTransportError, _ state: TransferState) -> Int {
        if state.storedError == nil { state.storedError = error }
        close()
        return ccurl_readfunc_abort()
    }

    /// The transfer is over: the source stops at its next chunk.
    func close() {
        pipe?.close()
        pump?.cancel()
    }
}
