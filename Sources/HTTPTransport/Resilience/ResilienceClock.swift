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

    static let system = ResilienceClock(
        now: { Self.uptime() },
        date: { Date() },
        wait: { seconds, cancellation in
            guard let cancellation else {
                if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
                return true
            }
            return !cancellation.wait(seconds: seconds)
        })

    private static func uptime() -> TimeInterval {
        TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}
