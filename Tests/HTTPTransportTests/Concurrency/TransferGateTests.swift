import Foundation
@testable import HTTPTransport
import XCTest

/// `TransferGate`, the session's `maxConcurrentTransfers`: places up to the limit, the rest
/// served first come first served, a cancelled waiter leaving the queue without a place.
final class TransferGateTests: XCTestCase {
    /// Waits (bounded) until the gate has `waiting` waiters queued.
    private func waitUntil(_ gate: TransferGate, waiting: Int) async throws {
        let deadline = Date().addingTimeInterval(10)
        while gate.counts.waiting != waiting, Date() < deadline { try await Task.sleep(for: .milliseconds(2)) }
        XCTAssertEqual(gate.counts.waiting, waiting)
    }

    func testPlacesUpToTheLimitAreTakenAtOnce() async {
        let gate = TransferGate(limit: 3)
        for _ in 0..<3 { _ = await gate.enter() }
        XCTAssertEqual(gate.counts.running, 3)
        XCTAssertEqual(gate.counts.waiting, 0)
        for _ in 0..<3 { gate.leave() }
        XCTAssertEqual(gate.counts.running, 0)
    }

    func testWaitersAreServedInTheOrderTheyCame() async throws {
        let gate = TransferGate(limit: 1)
        _ = await gate.enter()
        let order = Recorder<Int>()
        var tasks: [Task<Void, Never>] = []
        for index in 0..<5 {
            tasks.append(Task {
                _ = await gate.enter()
                order.add(index)
                gate.leave()
            })
            try await waitUntil(gate, waiting: index + 1)
        }
        gate.leave()
        for task in tasks { await task.value }
        XCTAssertEqual(order.values, [0, 1, 2, 3, 4])
        XCTAssertEqual(gate.counts.running, 0)
    }

    func testACancelledWaiterLeavesTheQueueWithoutAPlace() async throws {
        let gate = TransferGate(limit: 1)
        _ = await gate.enter()
        let cancelled = Task { await gate.enter() }
        try await waitUntil(gate, waiting: 1)
        let next = Task { await gate.enter() }
        try await waitUntil(gate, waiting: 2)
        cancelled.cancel()
        let gotPlace = await cancelled.value
        XCTAssertFalse(gotPlace)
        XCTAssertEqual(gate.counts.waiting, 1)
        gate.leave()  // the place goes to `next`, not to the cancelled waiter
        let nextGotPlace = await next.value
        XCTAssertTrue(nextGotPlace)
        XCTAssertEqual(gate.counts.running, 1)
        gate.leave()
        XCTAssertEqual(gate.counts.running, 0)
    }

    func testATaskCancelledBeforeItWaitsGetsNoPlace() async {
        let gate = TransferGate(limit: 1)
        _ = await gate.enter()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await gate.enter()
        }
        let gotPlace = await task.value
        XCTAssertFalse(gotPlace)
        XCTAssertEqual(gate.counts.waiting, 0)
        gate.leave()
        XCTAssertEqual(gate.counts.running, 0)
    }

    func testManyTasksNeverHoldMoreThanTheLimit() async {
        let gate = TransferGate(limit: 4)
        let inside = Protected((now: 0, peak: 0))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    _ = await gate.enter()
                    inside.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
                    await Task.yield()
                    inside.withLock { $0.now -= 1 }
                    gate.leave()
                }
            }
        }
        XCTAssertEqual(inside.value.peak, 4)
        XCTAssertEqual(gate.counts.running, 0)
        XCTAssertEqual(gate.counts.waiting, 0)
    }
}
