import Foundation

/// How an event stream (`transport.events(_:)`, `transport.events(request:onEvent:)`) waits
/// before it reconnects, and when it gives up: a floor under the server's `retry`, exponential
/// back-off while connections end without an event, a cap, and jitter, so that a server that
/// sends `retry: 0` and closes, or a stream that keeps failing, is not asked again at once,
/// forever.
///
/// The wait before the n-th reconnect in a row without an event is
/// `min(maximumDelay, max(minimumDelay, retry) × 2^(n−1))`, where `retry` is the server's last
/// `retry` (3 s when it sent none), multiplied by a random factor in `1 ± jitter` and kept
/// within `[minimumDelay, maximumDelay]`. Any event resets n to 1. A connection that ends
/// without delivering an event (closed cleanly or cut) counts as a failure: after
/// `maxConsecutiveFailures` reconnects in a row without an event the events end by throwing
/// the last error.
///
/// ```swift
/// // Reconnect forever, between 1 s and 5 minutes apart.
/// let policy = ServerSentEventReconnectionPolicy(maxConsecutiveFailures: nil, minimumDelay: 1, maximumDelay: 300)
/// for try await event in transport.events(request, reconnection: policy) { handle(event) }
/// ```
public struct ServerSentEventReconnectionPolicy: Sendable, Hashable {
    /// Reconnects in a row without an event after which the events end with the last error
    /// (less than 1 counts as 1); `nil` reconnects forever.
    public var maxConsecutiveFailures: Int?
    /// The shortest wait before a reconnect, in seconds, whatever `retry` the server sent.
    public var minimumDelay: TimeInterval
    /// The longest wait before a reconnect, in seconds, however long the back-off or the
    /// server's `retry`.
    public var maximumDelay: TimeInterval
    /// How much each wait varies at random, as a fraction of it (0.2: ±20 %), so that clients
    /// that lost the same server do not all come back at the same moment.
    public var jitter: Double

    /// A policy; the defaults give up after five reconnects in a row without an event and wait
    /// between 0.5 s and a minute.
    public init(maxConsecutiveFailures: Int? = 5, minimumDelay: TimeInterval = 0.5, maximumDelay: TimeInterval = 60,
                jitter: Double = 0.2) {
        self.maxConsecutiveFailures = maxConsecutiveFailures
        self.minimumDelay = minimumDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
    }

    /// The wait in seconds before the `reconnect`-th reconnect in a row without an event (1 after
    /// an event), given the server's `retry` in seconds and `random`, a value in -1...1 that
    /// picks the jitter.
    func delay(beforeReconnect reconnect: Int, retry: TimeInterval, random: Double) -> TimeInterval {
        let floor = Self.bounded(minimumDelay)
        let ceiling = max(floor, Self.bounded(maximumDelay))
        let doublings = Double(min(max(reconnect - 1, 0), 64))
        let backedOff = min(ceiling, max(floor, retry) * pow(2, doublings))
        let spread = jitter.isNaN ? 0 : min(max(jitter, 0), 1)
        let jittered = backedOff * (1 + spread * min(max(random, -1), 1))
        return min(ceiling, max(floor, jittered))
    }

    /// Whether `failures` reconnects in a row without an event are as many as the policy allows.
    func givesUp(after failures: Int) -> Bool {
        guard let maxConsecutiveFailures else { return false }
        return failures >= max(maxConsecutiveFailures, 1)
    }

    /// A wait the readers can sleep: not negative, not NaN, at most a day (a value given as
    /// `.infinity` or larger means "as long as may be").
    private static func bounded(_ seconds: TimeInterval) -> TimeInterval {
        seconds.isNaN ? 0 : min(max(seconds, 0), longestWait)
    }

    private static let longestWait: TimeInterval = 86_400
}
