import Foundation

/// The entries an `HTTPCache` is revalidating in the background (`stale-while-revalidate`):
/// one revalidation per entry at a time, and a way to wait until none runs.
final class BackgroundRevalidations: @unchecked Sendable {
    // Guarded by `condition`.
    private var running = Set<String>()
    private let condition = NSCondition()

    /// Marks `entry` as being revalidated; `false` when it is already.
    func begin(_ entry: String) -> Bool {
        condition.withLock { running.insert(entry).inserted }
    }

    /// Marks `entry`'s revalidation as over.
    func end(_ entry: String) {
        condition.withLock {
            running.remove(entry)
            condition.broadcast()
        }
    }

    /// Waits until no revalidation runs; `false` when `timeout` seconds passed first.
    func waitUntilIdle(timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return condition.withLock {
            while !running.isEmpty {
                if !condition.wait(until: deadline) { return running.isEmpty }
            }
            return true
        }
    }
}
