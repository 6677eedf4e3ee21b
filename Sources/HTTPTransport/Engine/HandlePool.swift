import Foundation

/// The session's idle easy handles, most recently used first, so a sequence of sends keeps
/// using the same warm connection (handles whose last transfer failed come last). Bounded:
/// beyond `maxIdle`, or after `idleTimeout`, handles are closed.
final class HandlePool: Sendable {
    private let idle = Locked<[EasyHandle]>([])
    private let maxIdle: Int
    /// In milliseconds.
    private let idleTimeout: Int64

    init(maxIdle: Int, idleTimeout: TimeInterval) {
        self.maxIdle = max(0, maxIdle)
        self.idleTimeout = Int64((idleTimeout.isNaN ? 0 : min(max(0, idleTimeout), 1e12)) * 1000)
    }

    /// Milliseconds on the coarse monotonic clock: a few nanoseconds to read (the precise clock
    /// costs more, twice a send), and exact enough for time-outs of seconds.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// An idle handle, or a new one (`nil` only if libcurl cannot allocate one).
    func checkOut() -> EasyHandle? {
        let now = Self.now()
        let (handle, expired): (EasyHandle?, [EasyHandle]) = idle.withLock { handles in
            let expired = handles.filter { now - $0.idleSince > idleTimeout }
            if !expired.isEmpty { handles.removeAll { now - $0.idleSince > idleTimeout } }
            return (handles.popLast(), expired)
        }
        _ = expired  // released (and closed) outside the lock
        return handle ?? EasyHandle()
    }

    /// Returns a handle for reuse (closing it when the pool is full). A handle whose transfer
    /// did not finish cleanly (`warm` false) probably holds no live connection: it goes to the
    /// bottom, so the next send gets a handle with a warm connection if there is one.
    func checkIn(_ handle: EasyHandle, warm: Bool = true) {
        handle.idleSince = Self.now()
        let overflow: EasyHandle? = idle.withLock { handles in
            guard handles.count < maxIdle else { return handle }
            if warm { handles.append(handle) } else { handles.insert(handle, at: 0) }
            return nil
        }
        _ = overflow
    }

    /// Closes every idle handle.
    func drain() {
        let handles = idle.withLock { handles in
            defer { handles = [] }
            return handles
        }
        _ = handles
    }

    /// The number of idle handles (for tests and diagnostics).
    var idleCount: Int { idle.withLock { $0.count } }
}
