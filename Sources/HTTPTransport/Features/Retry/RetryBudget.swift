import Foundation

/// Bounds the retries a `RetryPolicy` makes across all the sends of its transport, so that a
/// dependency that starts failing gets at most a small share of extra load instead of a retry
/// storm (the rule of gRPC's and Finagle's retry budgets).
///
/// Over the last 10 seconds, retries may not exceed `ratio` × the first attempts made in that
/// time, plus `minimumPerSecond` × 10 (so that a quiet transport can still retry). A retry over
/// budget is not made: the failure is returned, its message saying why, and a line is logged.
/// Copies of one policy share its budget.
///
/// ```swift
/// let retrier = RetryPolicy(maxAttempts: 3, budget: RetryBudget(ratio: 0.1, minimumPerSecond: 5))
/// ```
public struct RetryBudget: Sendable, Hashable {
    /// Retries allowed per first attempt in the window (0.1: one retry per ten sends).
    public var ratio: Double
    /// Retries a second allowed whatever the traffic.
    public var minimumPerSecond: Double

    /// A budget of `ratio` retries per first attempt plus `minimumPerSecond`.
    public init(ratio: Double = 0.1, minimumPerSecond: Double = 10) {
        self.ratio = ratio.isFinite ? max(0, ratio) : 0
        self.minimumPerSecond = minimumPerSecond.isFinite ? max(0, minimumPerSecond) : 0
    }

    /// The window over which first attempts and retries are counted, in seconds.
    static let window = 10

    /// The retries allowed in the window after `firstAttempts` first attempts.
    func limit(firstAttempts: Int) -> Double {
        ratio * Double(firstAttempts) + minimumPerSecond * Double(Self.window)
    }
}

/// The counts behind one policy's `RetryBudget`: first attempts and retries per second over the
/// last `RetryBudget.window` seconds (a ring of one-second slots). Shared by the policy's copies.
final class RetryBudgetLedger: Sendable {
    let budget: RetryBudget
    private let clock: ResilienceClock
    private let slots = Locked<[Slot]>(Array(repeating: Slot(), count: RetryBudget.window))

    struct Slot: Sendable {
        var second = Int.min
        var firstAttempts = 0
        var retries = 0
    }

    /// What the budget says about one retry.
    struct Verdict: Sendable {
        var allowed: Bool
        var retries: Int
        var firstAttempts: Int
        var limit: Double
    }

    init(budget: RetryBudget, clock: ResilienceClock = .system) {
        self.budget = budget
        self.clock = clock
    }

    /// A send's first attempt.
    func recordFirstAttempt() {
        let second = currentSecond()
        slots.withLock { slots in Self.slot(&slots, second) { $0.firstAttempts += 1 } }
    }

    /// Takes a retry from the budget when there is one left.
    func takeRetry() -> Verdict {
        let second = currentSecond()
        return slots.withLock { slots in
            var firstAttempts = 0
            var retries = 0
            for slot in slots where slot.second > second - RetryBudget.window {
                firstAttempts += slot.firstAttempts
                retries += slot.retries
            }
            let limit = budget.limit(firstAttempts: firstAttempts)
            let allowed = Double(retries) + 1 <= limit
            if allowed { Self.slot(&slots, second) { $0.retries += 1 } }
            return Verdict(allowed: allowed, retries: retries, firstAttempts: firstAttempts, limit: limit)
        }
    }

    private func currentSecond() -> Int { Int(clock.now().rounded(.down)) }

    /// Updates the slot of `second`, emptying it first when it last held an older second.
    private static func slot(_ slots: inout [Slot], _ second: Int, _ update: (inout Slot) -> Void) {
        let index = ((second % RetryBudget.window) + RetryBudget.window) % RetryBudget.window
        if slots[index].second != second { slots[index] = Slot(second: second) }
        update(&slots[index])
    }
}
