import CCurl
import Foundation

/// One transfer on a `TransferLoop`: what the loop needs to run it, and its result, handed back
/// exactly once under `lock` (which ThreadSanitizer sees; the continuation only wakes the task).
/// The lock is its loop's own (`TransferLoop.lock`), so that a transfer makes no lock of its own
/// (an `NSLock` is two allocations, a mutex set up and torn down: ~0.5k instructions per send),
/// and it is its cancellation's waker itself (no closure made per send).
/// (A `CheckedContinuation`: with an `UnsafeContinuation`, which would save an object per send,
/// ThreadSanitizer reports the resumed task's frame as raced with the loop thread's resume.)
/// Whatever ends it first (libcurl's result, its cancellation, the multiplex gate's time-out, a
/// stopped loop) decides the result; later attempts change nothing.
final class LoopTransfer: CancellationWaker, @unchecked Sendable {
    let handle: EasyHandle
    let state: TransferState
    let request: RawRequest
    /// For a stream's head (its metrics); nil otherwise. (A strong reference, for as long as
    /// the transfer runs: the engine outlives it anyway, its session being in use.)
    let engine: CurlEngine?
    /// When it joined the loop (a stream's head time-out counts from here; set by `add` for a
    /// stream only, the clock being read only for what needs it). Loop thread only.
    var started: ContinuousClock.Instant {
        get { joined ?? .now }
        set { joined = newValue }
    }
    @exclusivity(unchecked) private var joined: ContinuousClock.Instant?
    /// The origin whose HTTP/2 connection it waits to share (`MultiplexGate`), nil when it goes
    /// to the multi handle at once.
    let multiplexOrigin: String?
    /// Whether the loop read the HTTP version of its head (`MultiplexGate`). Loop thread only.
    @exclusivity(unchecked) var versionKnown = false
    /// When its time-out ends, for a transfer the multiplex gate may hold back (nil: none).
    let deadline: ContinuousClock.Instant?
    /// Runs once it ended, on the thread that ended it (tests).
    private let onFinish: (@Sendable (CURLcode) -> Void)?
    /// The loop that runs it, which its cancellation asks to end it (nil: tests that give it to
    /// a loop of their choosing, which then ends it through a waker closure). Unowned: the loop
    /// may hold the transfer after it stopped (a cancellation handed over too late), and a strong
    /// reference back would keep both; the transfer is its cancellation's waker only while the
    /// loop's `perform` or `run` holds the loop.
    unowned let loop: TransferLoop?
    /// Its loop's lock (or, without a loop, its own); held only for a moment.
    private let lock: NSCondition
    // Guarded by `lock`, which already keeps any two accesses apart: no dynamic exclusivity
    // check on top (two per hand-over).
    @exclusivity(unchecked) private var continuation: CheckedContinuation<Void, Never>?
    @exclusivity(unchecked) private var result: CURLcode?

    init(handle: EasyHandle, state: TransferState, request: RawRequest, engine: CurlEngine?,
         multiplexOrigin: String? = nil, deadline: ContinuousClock.Instant? = nil,
         loop: TransferLoop? = nil, onFinish: (@Sendable (CURLcode) -> Void)? = nil) {
        self.handle = handle
        self.loop = loop
        lock = loop?.lock ?? NSCondition()
        self.multiplexOrigin = multiplexOrigin
        self.deadline = deadline
        self.state = state
        self.request = request
        self.engine = engine
        self.onFinish = onFinish
    }

    /// Its cancellation fired: its loop ends it.
    func cancellationRequested() { loop?.cancel(self) }

    func install(_ continuation: CheckedContinuation<Void, Never>) {
        lock.withLock { self.continuation = continuation }
    }

    /// The transfer ended with `code`: the awaiting task resumes. Only the first call counts.
    func finish(_ code: CURLcode) {
        lock.lock()
        guard result == nil else { return lock.unlock() }
        result = code
        // (Moved out, not copied and cleared: the continuation's size is known only at run
        // time, so each copy or destruction is a call through its value witnesses.)
        let waiting = continuation.take()
        lock.unlock()
        onFinish?(code)
        // (Consumed into the binding: `waiting?.resume()` copies the continuation out of the
        // optional and destroys the copy, two more calls through its value witnesses.)
        if let waiting = consume waiting { waiting.resume() }
    }

    /// Whether it ended.
    var isFinished: Bool {
        lock.lock()
        defer { lock.unlock() }
        return result != nil
    }

    /// The code it ended with (read by the task after it resumed).
    var code: CURLcode {
        lock.lock()
        defer { lock.unlock() }
        return result ?? CURLE_FAILED_INIT
    }
}
