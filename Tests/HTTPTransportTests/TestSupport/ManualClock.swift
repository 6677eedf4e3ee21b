import Foundation
@testable import HTTPTransport

/// A clock for the per-origin rules and the retry budget that moves only when told to, or when a
/// send waits on it (a wait moves it forward by the time waited, at once). Thread-safe.
final class ManualClock: Sendable {
    private let state = Protected<(now: TimeInterval, waits: [TimeInterval])>((1_000, []))
    /// The wall-clock date at `now == 1_000`.
    static let startDate = Date(timeIntervalSince1970: 1_800_000_000)

    var now: TimeInterval { state.withLock { $0.now } }
    var date: Date { Self.startDate.addingTimeInterval(now - 1_000) }
    /// Every wait asked for, in order.
    var waits: [TimeInterval] { state.withLock { $0.waits } }

    func advance(_ seconds: TimeInterval) { state.withLock { $0.now += seconds } }

    var clock: ResilienceClock {
        ResilienceClock(
            now: { self.now },
            date: { self.date },
            wait: { seconds, cancellation in
                if cancellation?.isCancelled == true { return false }
                self.state.withLock {
                    $0.waits.append(seconds)
                    $0.now += seconds
                }
                return true
            })
    }
}

/// A stub engine that records when (on a `ManualClock`) and what it was asked, and answers with
/// `answer` (default 200).
final class ClockedStub: Sendable {
    struct Call: Sendable {
        let time: TimeInterval
        let request: RawRequest
    }

    private let calls = Protected<[Call]>([])
    let clock: ManualClock
    private let answer: @Sendable (RawRequest, Int) -> RawResponse

    init(clock: ManualClock, answer: @escaping @Sendable (RawRequest, Int) -> RawResponse = { request, _ in
        RawResponse(request: request, statusCode: .ok)
    }) {
        self.clock = clock
        self.answer = answer
    }

    var recorded: [Call] { calls.withLock { $0 } }
    var count: Int { calls.withLock { $0.count } }

    var engine: StubEngine {
        StubEngine { request in
            let number = self.calls.withLock { calls in
                calls.append(Call(time: self.clock.now, request: request))
                return calls.count
            }
            return self.answer(request, number)
        }
    }

    /// A transport over a session with `configuration`, this stub and the manual clock.
    func transport(_ configuration: Session.Configuration, retrier: (any HTTPRetrier)? = nil) -> HTTPTransport {
        HTTPTransport(session: Session(configuration: configuration, engine: engine, clock: clock.clock), retrier: retrier)
    }
}
