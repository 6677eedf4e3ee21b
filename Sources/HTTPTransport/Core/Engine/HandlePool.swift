import Foundation

/// The session's idle easy handles, most recently used first, so a sequence of sends keeps
/// using the same warm connection. Bounded: beyond `maxIdle`, or after `idleTimeout`, handles
/// are closed. Only handles whose last transfer succeeded come back (see `CurlEngine.finish`).
final class HandlePool: Sendable {
    private let idle = Locked<[EasyHandle]>([])
    private let maxIdle: Int
    /// In milliseconds.
    private let idleTimeout: Int64

    init(maxIdle: Int, idleTimeout: TimeInterval) {
        self.maxIdle = max(0, maxIdle)
        self.idleTimeout = Int64((idleTimeout.isNaN ? 0 : min(max(0, idleTimeout), 1e12)) * 1000)
    }

    /// Milliseconds on the coarse monotonic clock: a few nanoseconds to read, and exact enough
    /// for idle time-outs of seconds.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// The most recently used idle handle, or `nil` when none is left. Handles idle past the
    /// time-out are closed first: they are the oldest, at the front (handles come back at the end).
    func checkOut() -> EasyHandle? {
        let now = Self.now()
        let (handle, expired): (EasyHandle?, [EasyHandle]) = idle.withLock { handles in
            guard let oldest = handles.first, now - oldest.idleSince > idleTimeout else { return (handles.popLast(), []) }
            let stale = handles.prefix { now - $0.idleSince > idleTimeout }.count
            let expired = Array(handles[..<stale])
            handles.removeFirst(stale)
            return (handles.popLast(), expired)
        }
        _ = expired  // released (and closed) outside the lock
        return handle
    }

    /// Keeps a handle for reuse (closing it when the pool is full).
    func checkIn(_ handle: EasyHandle) {
        let overflow: EasyHandle? = idle.withLock { handles in
            guard handles.count < maxIdle else { return handle }
            // Stamped under the lock: the handles stay in the order of their times.
            handle.idleSince = Self.now()
            handles.append(handle)
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
