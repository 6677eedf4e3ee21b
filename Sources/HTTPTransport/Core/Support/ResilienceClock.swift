import Dispatch
import Foundation

/// The time as the per-origin rules and the retry budget read it, and their way of waiting.
/// Real time by default; tests give a manual clock so that rules about seconds run in
/// microseconds and always the same way.
struct ResilienceClock: Sendable {
    /// Monotonic seconds (only differences matter).
    var now: @Sendable () -> TimeInterval
    /// The wall-clock date, for `Retry-After` dates and the messages.
    var date: @Sendable () -> Date
    /// Waits `seconds`, returning early (`false`) when `cancellation` is cancelled.
    var wait: @Sendable (_ seconds: TimeInterval, _ cancellation: CancellationHandle?) -> Bool
    /// The same wait for an async send, holding no thread; nil: `wait` (a manual clock's, which
    /// returns at once).
    var sleep: (@Sendable (_ seconds: TimeInterval, _ cancellation: CancellationHandle?) async -> Bool)?

    init(now: @escaping @Sendable () -> TimeInterval, date: @escaping @Sendable () -> Date,
         wait: @escaping @Sendable (_ seconds: TimeInterval, _ cancellation: CancellationHandle?) -> Bool,
         sleep: (@Sendable (_ seconds: TimeInterval, _ cancellation: CancellationHandle?) async -> Bool)? = nil) {
        self.now = now
        self.date = date
        self.wait = wait
        self.sleep = sleep
    }

    /// Waits `seconds` without holding a thread; `false` when `cancellation` was cancelled.
    func sleep(_ seconds: TimeInterval, _ cancellation: CancellationHandle?) async -> Bool {
        if let sleep { return await sleep(seconds, cancellation) }
        return wait(seconds, cancellation)
    }

    static let system = ResilienceClock(
        now: { Self.uptime() },
        date: { Date() },
        wait: { seconds, cancellation in CancellationHandle.wait(seconds, unless: cancellation) },
        sleep: { seconds, cancellation in await CancellationHandle.sleep(seconds, unless: cancellation) })

    private static func uptime() -> TimeInterval {
        TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}

extension ResilienceClock: SendWaiting {
    func pause(_ seconds: TimeInterval, _ cancellation: CancellationHandle?) -> Bool { wait(seconds, cancellation) }
    func pause(_ seconds: TimeInterval, _ cancellation: CancellationHandle?) async -> Bool { await sleep(seconds, cancellation) }
}
