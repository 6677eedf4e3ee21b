import CCurl
import Foundation

/// One session's transfer loop: a libcurl multi handle driven by one thread, so that thousands
/// of async sends, fan-out requests and streams are in flight at once without a thread each.
/// The thread starts with the first transfer and ends with the session (`stop()`).
///
/// Only the loop thread touches the multi handle and the easy handles it holds. Other threads
/// hand it work under `lock` and wake its poll (`curl_multi_wakeup`): a new transfer, a
/// cancellation, a stream whose consumer wants more. A finished transfer is handed back through
/// its `LoopTransfer` (under that object's lock), which resumes the task awaiting it; everything
/// else of the exchange (interceptors, cache, the response's assembly) runs in that task, never
/// on this thread.
///
/// Connections live in the multi handle's own pool: kept alive between the loop's transfers,
/// shared by concurrent requests to an HTTP/2 origin (`multiplexing`), at most
/// `maxHostConnections` per host (0: no limit), transfers beyond it waiting inside libcurl.
final class TransferLoop: @unchecked Sendable {
    private let multi: UnsafeMutableRawPointer
    /// The engine's share (DNS cache, TLS sessions), which the multi handle's connections refer
    /// to until they are closed: it must outlive them, whichever thread lets go of the engine last.
    private let share: CurlShare?
    private let lock = NSCondition()
    // Guarded by `lock`.
    private var submitted: [LoopTransfer] = []
    private var cancelled: [LoopTransfer] = []
    private var threadState = ThreadState.notStarted
    /// The loop thread, once it runs (not the `Thread`: its block holds this loop).
    private var threadID: pthread_t?
    // The loop thread's own.
    @exclusivity(unchecked) private var running: [UnsafeMutableRawPointer: LoopTransfer] = [:]
    @exclusivity(unchecked) private var streams: [UnsafeMutableRawPointer: LoopTransfer] = [:]
    /// Transfers with a streamed request body (`StreamedUpload`), which may pause for its chunks.
    @exclusivity(unchecked) private var uploads: [UnsafeMutableRawPointer: LoopTransfer] = [:]
    /// Open WebSockets, whose sockets wait in this loop's poll (WebSocketHub.swift).
    private let webSockets: WebSocketHub
    /// Transfers that wait to share an HTTP/2 connection, admitted per origin (MultiplexGate.swift).
    @exclusivity(unchecked) private var gate = MultiplexGate()

    private enum ThreadState { case notStarted, running, stopping, stopped }

    /// Longest poll without a wake-up (streams need their time-outs checked sooner).
    private static let idlePoll: Duration = .seconds(1)

    init?(maxHostConnections: Int, multiplexing: Bool, share: CurlShare?) {
        guard let multi = curl_multi_init() else { return nil }
        self.multi = multi
        self.share = share
        webSockets = WebSocketHub(multi: multi)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, multiplexing ? Int(CURLPIPE_MULTIPLEX) : Int(CURLPIPE_NOTHING))
        if maxHostConnections > 0 {
            _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxHostConnections)
        }
    }

    deinit {
        // `stop()` cleaned up when the thread ran; otherwise nothing else holds the multi.
        if threadState == .notStarted { curl_multi_cleanup(multi) }
    }

    /// Runs `transfer` (prepared, not yet started) on the loop and returns its result code once
    /// it finished, failed or was cancelled (through its control's `CancellationHandle`).
    func perform(_ transfer: LoopTransfer) async -> CURLcode {
        let cancellation = transfer.state.control.cancellation
        let token = cancellation?.addWaker { [self] in cancel(transfer) }
        defer { if let token { cancellation?.removeWaker(token) } }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            transfer.install(continuation)
            if cancellation?.isCancelled == true {
                transfer.finish(transfer.state.cancelled())
            } else if !submit(transfer) {
                transfer.state.storedError = HTTPTransportError(
                    code: .other, message: "The session's transfer loop has stopped.", url: transfer.state.requestURL)
                transfer.finish(CURLE_FAILED_INIT)
            }
        }
        return transfer.code
    }

    /// Stops the thread after the transfers in flight ended, and waits for it (not when called
    /// on the loop thread itself); the multi handle and its connections are closed.
    func stop() {
        lock.lock()
        guard threadState == .running else {
            lock.unlock()
            return
        }
        threadState = .stopping
        lock.unlock()
        _ = curl_multi_wakeup(multi)
        lock.lock()
        if let threadID, pthread_equal(threadID, pthread_self()) != 0 {
            lock.unlock()
            return
        }
        while threadState != .stopped { lock.wait() }
        lock.unlock()
    }

    /// Transfers the loop holds now (for tests and telemetry).
    var counts: (submitted: Int, threadRunning: Bool) {
        lock.withLock { (submitted.count, threadState == .running) }
    }

    // MARK: Hand-overs (any thread)

    private func submit(_ transfer: LoopTransfer) -> Bool {
        lock.lock()
        let state = threadState
        if state == .notStarted { threadState = .running }
        // One wake-up per batch: the loop takes every submitted transfer at once, and each of
        // its rounds visits every transfer it holds (curl_multi_perform), so a burst of
        // submissions must not make a round each.
        let wakes = submitted.isEmpty
        if state == .notStarted || state == .running { submitted.append(transfer) }
        lock.unlock()
        switch state {
        case .notStarted:
            let thread = Thread { [self] in run() }
            thread.name = Self.threadName
            thread.start()
            return true
        case .running:
            if wakes { _ = curl_multi_wakeup(multi) }
            return true
        case .stopping, .stopped:
            return false
        }
    }

    private func cancel(_ transfer: LoopTransfer) {
        lock.withLock { cancelled.append(transfer) }
        _ = curl_multi_wakeup(multi)
    }

    /// Wakes the poll so that a paused stream whose consumer took chunks resumes.
    private func wake() { _ = curl_multi_wakeup(multi) }

    static let threadName = "HTTPTransport.loop"

    // MARK: The loop thread

    private func run() {
        lock.withLock { threadID = pthread_self() }
        while true {
            lock.lock()
            let (new, cancelling, stopping) = (submitted, cancelled, threadState == .stopping)
            submitted = []
            cancelled = []
            lock.unlock()
            for transfer in new where gate.admits(transfer) { add(transfer) }
            for transfer in cancelling {
                if running[transfer.handle.curl] === transfer {
                    remove(transfer, code: transfer.state.cancelled())
                } else if gate.withdraw(transfer) {
                    transfer.finish(transfer.state.cancelled())
                }
            }
            for transfer in gate.expire(now: .now) { timedOutWaiting(transfer) }
            if !uploads.isEmpty { resumeUploads() }
            var stillRunning: Int32 = 0
            if curl_multi_perform(multi, &stillRunning) != CURLM_OK { failAll() }
            // Streams first: what a finished stream received in this round still goes out.
            driveStreams()
            collectFinished()
            if gate.waitingCount > 0 { admitWhereHTTP1() }
            webSockets.service()
            if stopping, running.isEmpty {
                webSockets.closeAll()
                break
            }
            webSockets.poll(milliseconds: pollMilliseconds())
        }
        curl_multi_cleanup(multi)
        lock.withLock {
            threadState = .stopped
            lock.broadcast()
        }
    }

    private func add(_ transfer: LoopTransfer) {
        let curl = transfer.handle.curl
        guard curl_multi_add_handle(multi, curl) == CURLM_OK else {
            transfer.state.storedError = HTTPTransportError(
                code: .other, message: "libcurl could not add the transfer to the session's loop.", url: transfer.state.requestURL)
            transfer.finish(CURLE_FAILED_INIT)
            for next in gate.release(transfer, httpVersion: 0) { add(next) }
            return
        }
        transfer.started = .now
        running[curl] = transfer
        if let stream = transfer.state.pacedSink {
            streams[curl] = transfer
            // (Strong: the waker is cleared when the transfer leaves the loop, in `remove`.)
            stream.setWaker { [self] in wake() }
        }
        if let upload = transfer.state.upload {
            uploads[curl] = transfer
            // (The waker goes with the upload's pipe, closed when the transfer ends.)
            upload.runsOnLoop { [self] in wake() }
        }
    }

    /// Resumes the uploads that paused for a chunk which has come since (or their source's end).
    private func resumeUploads() {
        for transfer in uploads.values {
            guard let upload = transfer.state.upload, upload.paused, upload.isReady else { continue }
            upload.paused = false
            _ = ccurl_unpause(transfer.handle.curl)
        }
    }

    /// Takes `transfer` off the multi handle (when still on it) and hands its result back; a
    /// stream's last gathered bytes go out first, even to a full buffer (the transfer is over).
    private func remove(_ transfer: LoopTransfer, code: CURLcode) {
        let curl = transfer.handle.curl
        guard running[curl] === transfer else { return }
        running[curl] = nil
        uploads[curl] = nil
        var code = code
        if streams.removeValue(forKey: curl) != nil, let stream = transfer.state.pacedSink {
            if !stream.flushPending(transfer.state, handle: transfer.handle, final: true), code == CURLE_OK {
                code = CURLE_ABORTED_BY_CALLBACK
            }
            stream.setWaker(nil)
        }
        // A WebSocket's handshake: its handle stays on the multi handle, with the connection.
        if code == CURLE_OK, let link = transfer.request.webSocket {
            if webSockets.adopt(link, handle: transfer.handle) { return transfer.finish(code) }
            code = CURLE_COULDNT_CONNECT
        }
        var httpVersion = 0
        if transfer.multiplexOrigin != nil { _ = ccurl_getinfo_long(curl, CURLINFO_HTTP_VERSION, &httpVersion) }
        curl_multi_remove_handle(multi, curl)
        transfer.finish(code)
        for next in gate.release(transfer, httpVersion: httpVersion) { addAfterWaiting(next) }
    }

    /// A transfer the multiplex gate let in late joins with what is left of its time-out.
    private func addAfterWaiting(_ transfer: LoopTransfer) {
        if let deadline = transfer.deadline {
            let left = max(1, Int(((deadline - .now) / .milliseconds(1)).rounded(.up)))
            try? transfer.handle.set(CURLOPT_TIMEOUT_MS, left)
        }
        add(transfer)
    }

    /// An origin whose first answer's head came over HTTP/1 has no multiplexing limit: its
    /// waiting transfers go in at once, not when one of its (maybe long) transfers ends.
    private func admitWhereHTTP1() {
        var learned: Set<String> = []
        for transfer in running.values where !transfer.versionKnown {
            guard let key = transfer.multiplexOrigin, transfer.state.statusCode != nil else { continue }
            transfer.versionKnown = true
            var version = 0
            _ = ccurl_getinfo_long(transfer.handle.curl, CURLINFO_HTTP_VERSION, &version)
            if version > 0 && version < 3 /* CURL_HTTP_VERSION_2_0 */ { learned.insert(key) }
        }
        for key in learned {
            for next in gate.learnedHTTP1(key) { addAfterWaiting(next) }
        }
    }

    /// A transfer whose time-out passed while it waited in the multiplex gate.
    private func timedOutWaiting(_ transfer: LoopTransfer) {
        transfer.state.storedError = HTTPTransportError(
            code: .timeout, message: "The request timed out waiting for a stream of its origin's HTTP/2 connection.",
            url: transfer.state.requestURL)
        transfer.finish(CURLE_OPERATION_TIMEDOUT)
    }

    private func collectFinished() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let curl = message.pointee.easy_handle,
                  let transfer = running[curl] else { continue }
            remove(transfer, code: message.pointee.data.result)
        }
    }

    /// A stream's turn: its head announced, its chunks handed over, its time-outs checked, and a
    /// paused one resumed (`curl_easy_pause` belongs to this thread).
    private func driveStreams() {
        for transfer in Array(streams.values) {
            guard let stream = transfer.state.pacedSink, let engine = transfer.engine else { continue }
            if let code = CancellableTransfer.drive(stream, handle: transfer.handle, state: transfer.state,
                                                    request: transfer.request, engine: engine, started: transfer.started) {
                remove(transfer, code: code)
            }
        }
    }

    /// libcurl failed as a whole (out of memory): every transfer ends with that failure.
    private func failAll() {
        for transfer in Array(running.values) { remove(transfer, code: CURLE_OUT_OF_MEMORY) }
    }

    private func pollMilliseconds() -> Int32 {
        var wait = Self.idlePoll
        let now = ContinuousClock.now
        for transfer in streams.values {
            if let stream = transfer.state.pacedSink { wait = min(wait, stream.nextCheck(at: now, started: transfer.started)) }
        }
        if let deadline = webSockets.nextDeadline { wait = min(wait, max(.zero, deadline - now)) }
        if let deadline = gate.earliestDeadline { wait = min(wait, max(.zero, deadline - now)) }
        return Int32(max(0, (wait / .milliseconds(1)).rounded(.up)))
    }
}

/// One transfer on the loop: what the loop thread needs to run it, and its result handed back
/// to the awaiting task under `lock` (which ThreadSanitizer sees; the continuation only wakes
/// the task).
final class LoopTransfer: @unchecked Sendable {
    let handle: EasyHandle
    let state: TransferState
    let request: RawRequest
    /// For a stream's head (its metrics); nil otherwise. (A strong reference, for as long as
    /// the transfer runs: the engine outlives it anyway, its session being in use.)
    let engine: CurlEngine?
    /// When it joined the loop (a stream's head time-out counts from here). Loop thread only.
    @exclusivity(unchecked) var started = ContinuousClock.now
    /// The origin whose HTTP/2 connection it waits to share (`MultiplexGate`), nil when it goes
    /// to the multi handle at once.
    let multiplexOrigin: String?
    /// Whether the loop read the HTTP version of its head (`MultiplexGate`). Loop thread only.
    @exclusivity(unchecked) var versionKnown = false
    /// When its time-out ends, for a transfer the multiplex gate may hold back (nil: none).
    let deadline: ContinuousClock.Instant?
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?  // guarded by `lock`
    private var result: CURLcode?  // guarded by `lock`

    init(handle: EasyHandle, state: TransferState, request: RawRequest, engine: CurlEngine?,
         multiplexOrigin: String? = nil, deadline: ContinuousClock.Instant? = nil) {
        self.handle = handle
        self.multiplexOrigin = multiplexOrigin
        self.deadline = deadline
        self.state = state
        self.request = request
        self.engine = engine
    }

    func install(_ continuation: CheckedContinuation<Void, Never>) {
        lock.withLock { self.continuation = continuation }
    }

    /// The transfer ended with `code`: the awaiting task resumes (once).
    func finish(_ code: CURLcode) {
        let waiting = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard result == nil else { return nil }
            result = code
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume()
    }

    /// The code it ended with (read by the task after it resumed).
    var code: CURLcode { lock.withLock { result ?? CURLE_FAILED_INIT } }
}
