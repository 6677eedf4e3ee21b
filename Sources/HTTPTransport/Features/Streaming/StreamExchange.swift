import Foundation

/// Where an async stream's exchange is (`StreamChannel`): one at a time, each numbered (a
/// redirect's next hop or a retrier's repeat starts the next). The chain waits for the
/// exchange's answer: its head, as soon as a streamed head arrived, or the whole response when
/// the transfer ended before one did (a redirect, a validated failure, an error). After a
/// streamed head, the transfer goes on and its end goes to the stream's body, not to the chain.
/// What a transfer of an earlier exchange still says (it was abandoned) counts for nothing.
struct StreamExchange {
    enum Phase: Equatable {
        /// None under way: none started yet, or the last one's transfer ended.
        case idle
        /// Under way; the chain waits for its answer.
        case awaitingHead
        /// Its streamed head answered the chain; the transfer goes on.
        case streaming
    }

    /// What the end of a transfer means.
    enum End: Equatable {
        /// Its exchange was abandoned (a later one started): nothing.
        case stale
        /// It ended before a streamed head: its response answers the chain.
        case answered
        /// It ended after its head answered: the body ends with it.
        case bodyEnded
    }

    private(set) var number = 0
    private(set) var phase = Phase.idle
    /// The answer for the chain, until the chain takes it.
    private var answer: RawResponse?
    /// Stops the transfer of the exchange under way.
    private var cancellation: CancellationHandle?

    /// Starts the next exchange, stopped with `cancellation`: its number, and the cancellation
    /// of the one it abandons, whose transfer still runs.
    mutating func begin(cancellation: CancellationHandle) -> (number: Int, abandoned: CancellationHandle?) {
        let abandoned = transferRuns ? self.cancellation : nil
        number += 1
        phase = .awaitingHead
        answer = nil
        self.cancellation = cancellation
        return (number, abandoned)
    }

    /// Whether what the transfer of exchange `number` hands over counts.
    func isCurrent(_ number: Int) -> Bool { number == self.number && phase != .idle }

    /// Whether a transfer of the current exchange still runs.
    var transferRuns: Bool { phase != .idle }

    /// A streamed head of exchange `number` arrived: `true` when it answers the chain.
    mutating func headArrived(_ head: RawResponse, of number: Int) -> Bool {
        guard number == self.number, phase == .awaitingHead else { return false }
        phase = .streaming
        answer = head
        return true
    }

    /// The transfer of exchange `number` ended with `response`.
    mutating func ended(_ response: RawResponse, of number: Int) -> End {
        guard isCurrent(number) else { return .stale }
        defer {
            phase = .idle
            cancellation = nil
        }
        guard phase == .awaitingHead else { return .bodyEnded }
        answer = response
        return .answered
    }

    /// Whether the chain's answer is there.
    var hasAnswer: Bool { answer != nil }

    /// The chain's answer, once (nil before it came).
    mutating func takeAnswer() -> RawResponse? {
        defer { answer = nil }
        return answer
    }
}
