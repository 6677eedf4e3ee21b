import CCurl
import Foundation

/// The one loop over libcurl's multi interface. Everything but a plain blocking send (which
/// runs `curl_easy_perform`) goes through it, in one of two modes:
///
/// - **The session's loop** (`init(maxHostConnections:multiplexing:keptConnections:share:)`):
///   one multi handle driven by one thread, so that thousands of async sends, fan-out requests,
///   streams and WebSockets are in flight at once without a thread each. The thread starts with the first
///   transfer and ends with the session (`stop()`); a transfer handed over after that fails
///   with an error at once.
/// - **Inline** (`run(_:)`): a blocking send that can be cancelled or streams runs the same
///   rounds on its own thread, on its easy handle's multi handle, until its one transfer ended.
///
/// A round (TransferLoop+Round.swift) is the same in both: take what other threads handed over,
/// let libcurl work, drive the streams (TransferLoop+Stream.swift), hand finished transfers back,
/// then wait in the poll. Only the thread running the rounds touches the multi handle and the
/// easy handles on it. Other threads hand it work under `lock` and wake its poll: a new transfer,
/// a cancellation, a stream whose consumer wants more, an upload's next chunk. A finished
/// transfer goes back through its `LoopTransfer`, exactly once; everything else of the exchange
/// (interceptors, cache, the response's assembly) runs in the caller, never on this thread.
///
/// Connections live in the multi handle's pool: kept alive between the loop's transfers (up to
/// `keptConnections`, from the session's `maxConcurrentTransfers`, besides WebSockets'),
/// shared by concurrent requests to an HTTP/2 origin (`multiplexing`), at most
/// `maxHostConnections` per host (0: no limit), transfers beyond it waiting inside libcurl.
final class TransferLoop: @unchecked Sendable {
    let multi: any LoopMulti
    /// The engine's share (DNS cache, TLS sessions), which the multi handle's connections refer
    /// to until they are closed: it must outlive them, whichever thread lets go of the engine last.
    private let share: CurlShare?
    /// Whether a streamed upload pauses for its chunks (the session's loop) rather than its read
    /// callback waiting for them (inline, where the thread is the send's own).
    let pausesUploads: Bool
    let lock = NSCondition()
    // Guarded by `lock`, which already keeps any two accesses apart: no dynamic exclusivity
    // check on top (each hand-over and each round touches these).
    @exclusivity(unchecked) var submitted: [LoopTransfer] = []
    @exclusivity(unchecked) var cancelled: [LoopTransfer] = []
    @exclusivity(unchecked) private var threadState = ThreadState.notStarted
    /// The loop is in its poll, or about to be, with nothing handed over: a new transfer wakes it.
    /// Cleared when a round takes its hand-overs; a transfer handed over while it is clear waits
    /// for that round's end, whose poll then only looks (`mayWait`), without a wake-up.
    @exclusivity(unchecked) private var waiting = false
    /// The loop thread, once it runs (not the `Thread`: its block holds this loop).
    private var threadID: pthread_t?
    // The running thread's own.
    /// What `takeHandOvers` took for this round, emptied afterwards with its storage kept:
    /// swapped with `submitted` and `cancelled` under the lock, so that a hand-over allocates
    /// no array.
    @exclusivity(unchecked) var takenNew: [LoopTransfer] = []
    @exclusivity(unchecked) var takenCancelled: [LoopTransfer] = []
    @exclusivity(unchecked) var running = RunningTransfers()
    @exclusivity(unchecked) var streams: [UnsafeMutableRawPointer: LoopTransfer] = [:]
    /// Transfers with a streamed request body (`StreamedUpload`), which may pause for its chunks.
    @exclusivity(unchecked) var uploads: [UnsafeMutableRawPointer: LoopTransfer] = [:]
    /// Open WebSockets, whose sockets wait in this loop's poll (WebSocketHub.swift); the
    /// session's loop only.
    let webSockets: WebSocketHub?
    /// Transfers that wait to share an HTTP/2 connection, admitted per origin (MultiplexGate.swift).
    @exclusivity(unchecked) var gate = MultiplexGate()
    /// A transfer was unpaused in this round: the next poll only looks, it does not wait (libcurl
    /// also sets the transfer's timer to run at once, but the loop does not count on it).
    @exclusivity(unchecked) var resumed = false

    enum ThreadState { case notStarted, running, stopping, stopped }

    /// Longest poll without a wake-up (streams need their time-outs checked sooner).
    static let idlePoll: Duration = .seconds(1)
    /// `idlePoll` as the poll takes it.
    static let idlePollMilliseconds = Int32(idlePoll / .milliseconds(1))
    static let threadName = "HTTPTransport.loop"

    /// A session's loop on its own multi handle (nil when libcurl cannot make one).
    convenience init?(maxHostConnections: Int, multiplexing: Bool, keptConnections: Int, share: CurlShare?) {
        guard let multi = CurlMulti(maxHostConnections: maxHostConnections, multiplexing: multiplexing,
                                    keptConnections: keptConnections) else { return nil }
        self.init(sessionLoopOn: multi, share: share)
    }

    /// A session's loop on `multi` (tests give a scripted one).
    init(sessionLoopOn multi: any LoopMulti, share: CurlShare? = nil) {
        self.multi = multi
        self.share = share
        pausesUploads = true
        webSockets = WebSocketHub(multi: multi)
    }

    /// A loop for one blocking transfer, run inline (`run(_:)`).
    init(inlineOn multi: any LoopMulti) {
        self.multi = multi
        share = nil
        pausesUploads = false
        webSockets = nil
    }

    deinit {
        // `stop()` closed it when the thread ran; otherwise nothing else holds it.
        multi.close()
    }

    // MARK: The session's loop

    /// Runs `transfer` (prepared, not yet started) on the loop and returns its result code once
    /// it finished, failed or was cancelled (through its control's `CancellationHandle`).
    nonisolated(nonsending) func perform(_ transfer: LoopTransfer) async -> CURLcode {
        let cancellation = transfer.state.control.cancellation
        let token = cancellation.map { register(transfer, on: $0) }
        defer { if let token { cancellation?.removeWaker(token) } }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            transfer.install(continuation)
            if !enqueue(transfer) { refuse(transfer) }
        }
        return transfer.code
    }

    /// Hands `transfer` to the loop thread (starting it with the first); false once the loop
    /// stopped (the transfer is left untouched).
    func enqueue(_ transfer: LoopTransfer) -> Bool {
        lock.lock()
        let state = threadState
        if state == .notStarted { threadState = .running }
        // A wake-up only when the loop waits in its poll (a round's resumed tasks hand over
        // their next transfers while it still runs, and the next round takes them without one),
        // and once per batch: the loop takes every submitted transfer at once, and each of its
        // rounds visits every transfer it holds (curl_multi_perform), so a burst of submissions
        // must not make a round each.
        let wakes = waiting && submitted.isEmpty
        if state == .notStarted || state == .running { submitted.append(transfer) }
        lock.unlock()
        switch state {
        case .notStarted:
            let thread = Thread { [self] in runThread() }
            thread.name = Self.threadName
            thread.start()
            return true
        case .running:
            if wakes { multi.wake() }
            return true
        case .stopping, .stopped:
            return false
        }
    }

    /// A transfer handed over after the loop stopped ends with this.
    func refuse(_ transfer: LoopTransfer) {
        transfer.state.storedError = HTTPTransportError(
            code: .other, message: "The session's transfer loop has stopped.", url: transfer.state.requestURL)
        transfer.finish(CURLE_FAILED_INIT)
    }

    /// Stops the thread after the transfers in flight ended, and waits for it (not when called
    /// on the loop thread itself); the multi handle and its connections are closed. A loop that
    /// never ran stops at once. Transfers handed over afterwards fail.
    func stop() {
        lock.lock()
        switch threadState {
        case .notStarted:
            threadState = .stopped
            lock.unlock()
            multi.close()
            return
        case .stopping, .stopped:
            lock.unlock()
            return
        case .running:
            threadState = .stopping
        }
        lock.unlock()
        multi.wake()
        lock.lock()
        if let threadID, pthread_equal(threadID, pthread_self()) != 0 {
            lock.unlock()
            return
        }
        while threadState != .stopped { lock.wait() }
        lock.unlock()
    }

    /// Registers with `handle` what ends `transfer` here when it is cancelled: the transfer
    /// itself when this is its loop (no closure made per send), else a closure; the token.
    private func register(_ transfer: LoopTransfer, on handle: CancellationHandle) -> Int {
        transfer.loop === self ? handle.addWaker(transfer) : handle.addWaker { [self] in cancel(transfer) }
    }

    /// Transfers waiting to be taken, and whether the thread runs (for tests and telemetry).
    var counts: (submitted: Int, threadRunning: Bool) {
        lock.withLock { (submitted.count, threadState == .running || threadState == .stopping) }
    }

    private func runThread() {
        lock.withLock { threadID = pthread_self() }
        while true {
            let stopping = round()
            if stopping, running.isEmpty {
                webSockets?.closeAll()
                break
            }
            poll()
        }
        multi.close()
        lock.withLock {
            threadState = .stopped
            lock.broadcast()
        }
    }

    // MARK: Inline

    /// Runs `transfer` on this thread to its end, by the same rounds as the session's loop.
    func run(_ transfer: LoopTransfer) -> CURLcode {
        let cancellation = transfer.state.control.cancellation
        let token = cancellation.map { register(transfer, on: $0) }
        defer { if let token { cancellation?.removeWaker(token) } }
        lock.withLock { submitted.append(transfer) }
        while true {
            _ = round()
            if transfer.isFinished { break }
            poll()
        }
        return transfer.code
    }

    // MARK: Hand-overs (any thread)

    /// Ends `transfer` early (its cancellation fired); several calls end it once.
    func cancel(_ transfer: LoopTransfer) {
        lock.withLock { cancelled.append(transfer) }
        multi.wake()
    }

    /// Wakes the poll: a paused stream's consumer took chunks, or an upload's chunk came.
    func wake() { multi.wake() }

    /// Takes what other threads handed over since the last round (under `lock`) into
    /// `takenNew` and `takenCancelled`; returns whether the loop is asked to stop. The round
    /// empties them when done (`releaseHandOvers`), keeping their storage for the next.
    func takeHandOvers() -> Bool {
        lock.lock()
        waiting = false
        swap(&submitted, &takenNew)
        swap(&cancelled, &takenCancelled)
        let stopping = threadState == .stopping
        lock.unlock()
        return stopping
    }

    /// Whether the poll after this round may wait: false when a transfer was handed over since
    /// the round took its hand-overs (the next round takes it at once). From a true answer on,
    /// until the next round, a transfer handed over wakes the poll (`enqueue`).
    func mayWait() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard submitted.isEmpty else { return false }
        waiting = true
        return true
    }

    /// The round is done with what it took (nothing of a transfer stays held until the next).
    func releaseHandOvers() {
        if !takenNew.isEmpty { takenNew.removeAll(keepingCapacity: true) }
        if !takenCancelled.isEmpty { takenCancelled.removeAll(keepingCapacity: true) }
    }
}
