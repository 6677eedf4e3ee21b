import Foundation
import Logging

/// `RetryPolicy`'s idempotency key and retry budget.
extension RetryPolicy {
    /// Adds the idempotency key to a `POST`/`PATCH` without one, and counts the send for the budget.
    public func prepareFirstAttempt(_ request: RawRequest) -> RawRequest {
        if budgetLedger != nil, sharedBudget?.recordFirstAttempt(budget: budget ?? RetryBudget()) != true {
            budgetLedger?.recordFirstAttempt()
        }
        guard let idempotencyKeyHeader else { return request }
        return IdempotencyKey.adding(to: request, header: idempotencyKeyHeader)
    }

    /// Whether the failed attempt carried this policy's idempotency key (so repeating it is safe).
    func carriesIdempotencyKey(_ context: RetryContext) -> Bool {
        guard let idempotencyKeyHeader else { return false }
        return IdempotencyKey.protects(context, header: idempotencyKeyHeader)
    }

    /// The failure to return instead of a retry the budget has no room for (logged); nil when
    /// the retry may go (it is then counted).
    func budgetRefusal(_ context: RetryContext) -> HTTPTransportError? {
        guard let ledger = budgetLedger else { return nil }
        let verdict = sharedVerdict(ledger) ?? ledger.takeRetry()
        guard !verdict.allowed else { return nil }
        let request = context.request
        let why = "the retry budget is spent: \(verdict.retries) retries in the last \(RetryBudget.window) s, "
            + "against \(ledger.budget.ratio) × \(verdict.firstAttempts) first attempts + "
            + "\(ledger.budget.minimumPerSecond)/s × \(RetryBudget.window) s = \(Int(verdict.limit.rounded(.down)))"
        Self.logger.notice("Not retrying \(request.method.rawValue) \(LogRedaction.default.redactedURL(request.url)) after attempt \(context.attempt) (\(context.error.kindName)): \(why)")
        var failure = context.error
        failure.message += " Not retried: \(why)."
        return failure
    }

    static let logger = Logger(label: "HTTPTransport")

    /// `retrier`, its budget counted in the session's shared store when it is a `RetryPolicy`
    /// with a budget and the session has one (the policy's own counts while the store is out).
    static func countingBudget(of retrier: any HTTPRetrier, in shared: (any RetryBudgetSharing)?) -> any HTTPRetrier {
        guard let shared, var policy = retrier as? RetryPolicy, policy.budget != nil else { return retrier }
        policy.sharedBudget = shared
        return policy
    }

    /// The shared budget's verdict, or nil when there is none or the store did not answer.
    private func sharedVerdict(_ ledger: RetryBudgetLedger) -> RetryBudgetLedger.Verdict? {
        sharedBudget?.takeRetry(budget: ledger.budget)
    }
}

/// Where a policy's retry budget is counted with other sessions' (the session's
/// `sharedState`, see Fleet); each answer is nil or `false` when the store did not answer, and
/// the policy then counts on its own.
protocol RetryBudgetSharing: Sendable {
    /// Counts a send's first attempt; `false` when the store did not take it.
    func recordFirstAttempt(budget: RetryBudget) -> Bool
    /// Takes a retry from the shared budget when there is one left.
    func takeRetry(budget: RetryBudget) -> RetryBudgetLedger.Verdict?
}
