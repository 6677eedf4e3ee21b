import Foundation

extension CancellationHandle {
    /// Waits `seconds` on the calling thread (a blocking send's back-off or turn); `false` when
    /// `cancellation` was cancelled first. Without a handle it cannot be cut short.
    static func wait(_ seconds: TimeInterval, unless cancellation: CancellationHandle?) -> Bool {
        guard let cancellation else {
            if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
            return true
        }
        return !cancellation.wait(seconds: seconds)
    }

    /// The same for an async send, holding no thread.
    static func sleep(_ seconds: TimeInterval, unless cancellation: CancellationHandle?) async -> Bool {
        !(await (cancellation ?? CancellationHandle()).sleep(seconds: seconds))
    }

    /// Waits `seconds` without holding a thread, returning early (`true`) as soon as the handle
    /// is cancelled: the async form of `wait(seconds:)`, for back-off and turn waits of async sends.
    func sleep(seconds: TimeInterval) async -> Bool {
        if isCancelled { return true }
        guard seconds > 0 else { return false }
        let sleeper = OneShotWake()
        let token = addWaker { sleeper.wake() }
        defer { removeWaker(token) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            sleeper.install(continuation)
            DispatchQueue.global().asyncAfter(deadline: .now() + min(seconds, 1e9)) { sleeper.wake() }
            if isCancelled { sleeper.wake() }
        }
        return isCancelled
    }
}

/// A continuation resumed by whichever comes first of several wake-ups (a timer, a
/// cancellation), exactly once.
final class OneShotWake: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?  // guarded by `lock`
    private var woken = false  // guarded by `lock`

    func install(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = lock.withLock { () -> Bool in
            if woken { return true }
            self.continuation = continuation
            return false
        }
        if resumeNow { continuation.resume() }
    }

    func wake() {
        let waiting = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard !woken else { return nil }
            woken = true
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume()
    }
}
