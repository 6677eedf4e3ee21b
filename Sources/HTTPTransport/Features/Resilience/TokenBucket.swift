import Foundation

/// One origin's token bucket: `rate` tokens a second, at most `capacity` saved up; it starts full.
/// A send reserves the next token, even one that does not exist yet, and waits until its time:
/// sends queue in the order they came, and none is woken only to find the token gone.
struct TokenBucket: Sendable {
    let rate: Double
    let capacity: Double
    /// Tokens left at `updated`; below zero, tokens already promised to waiting sends.
    private(set) var tokens: Double
    private var updated: TimeInterval

    init(rate: Double, burst: Int, now: TimeInterval) {
        self.rate = rate
        capacity = Double(max(1, burst))
        tokens = capacity
        updated = now
    }

    /// Reserves a token for a send that may wait up to `limit` seconds: the seconds until the
    /// token is due (0: at once), or `nil`, taking nothing, when it would come later than that.
    mutating func reserve(now: TimeInterval, within limit: TimeInterval) -> TimeInterval? {
        refill(now: now)
        let wait = tokens >= 1 ? 0 : (1 - tokens) / rate
        guard wait <= limit else { return nil }
        tokens -= 1
        return wait
    }

    /// Gives back a reserved token that was not used (its send was cancelled or timed out).
    mutating func giveBack(now: TimeInterval) {
        refill(now: now)
        tokens = min(capacity, tokens + 1)
    }

    /// Whether the bucket is full at `now` (then it is the same as a new one).
    func isFull(now: TimeInterval) -> Bool {
        var bucket = self
        bucket.refill(now: now)
        return bucket.tokens >= capacity
    }

    private mutating func refill(now: TimeInterval) {
        guard now > updated else { return }
        tokens = min(capacity, tokens + (now - updated) * rate)
        updated = now
    }
}
