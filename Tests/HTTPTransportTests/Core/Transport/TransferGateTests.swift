import Foundation
@testable import HTTPTransport
import XCTest

/// `TransferGate`, the session's `maxConcurrentTransfers`: places up to the limit, the rest
/// served first come first served, a cancelled or timed-out waiter leaving the queue without a
/// place.
final class TransferGateTests: XCTestCase {
    /// Waits (bounded) until the gate has `waiting` waiters queued in its arrival order (counted
    /// is not enough: a waiter counted first may queue second).
    private func waitUntil(_ gate: TransferGate, waiting: Int) async throws {
        let deadline = Date().addingTimeInterval(10)
        while gate.counts.waiting != waiting || gate.queuedCount != waiting, Date() < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        XCTAssertEqual(gate.counts.waiting, waiting)
    }

    /// Gives back the place a test holds after 10 s, so that a waiter the gate never answers
    /// fails the test instead of hanging it.
    private func watchdog(_ gate: TransferGate) -> Task<Void, Never> {
        Task {
            try? await Task.sleep(for: .seconds(10))
            if !Task.isCancelled { gate.leave() }
        }
    }

    func testPlacesUpToTheLimitAreTakenAtOnce() async {
        let gate = TransferGate(limit: 3)
        for _ in 0..<3 { _ = await gate.enter() }
        XCTAssertEqual(gate.counts.running, 3)
        XCTAssertEqual(gate.counts.waiting, 0)
        for _ in 0..<3 { gate.leave() }
        XCTAssertEqual(gate.counts.running, 0)
    }

    /// Takes a place, queues `count` waiters behind it (each giving its place back at once),
    /// gives the place back; the order the waiters were served in.
    private func servedOrder(of count: Int, at gate: TransferGate) async throws -> [Int] {
        _ = await gate.enter()
        let order = Recorder<Int>()
        var tasks: [Task<Void, Never>] = []
        for index in 0..<count {
            tasks.append(Task {
                _ = await gate.enter()
                order.add(index)
                gate.leave()
            })
            try await waitUntil(gate, waiting: index + 1)
        }
        gate.leave()
        for task in tasks { await task.value }
        return order.values
    }

    func testWaitersAreServedInTheOrderTheyCame() async throws {
        let gate = TransferGate(limit: 1)
        let order = try await servedOrder(of: 5, at: gate)
        XCTAssertEqual(order, [0, 1, 2, 3, 4])
        XCTAssertEqual(gate.counts.running, 0)
    }

    /// Once every queued waiter was served, a place given back with nobody queued is free at
    /// once, and waiters queued afterwards are served in their order too (the queue starts over).
    func testAQueueServedToItsEndStartsOverForLaterWaiters() async throws {
        let gate = TransferGate(limit: 1)
        for batch in 0..<2 {
            let order = try await servedOrder(of: 3, at: gate)
            XCTAssertEqual(order, [0, 1, 2], "batch \(batch)")
            XCTAssertEqual(gate.counts.running, 0, "batch \(batch)")
            XCTAssertTrue(gate.enterIfFree(), "batch \(batch): the place given back is not free")
            gate.leave()
            XCTAssertEqual(gate.counts.running, 0, "batch \(batch)")
        }
    }

    func testACancelledWaiterLeavesTheQueueWithoutAPlace() async throws {
        let gate = TransferGate(limit: 1)
        _ = await gate.enter()
        let cancelled = Task { await gate.enter() == .entered }
        try await waitUntil(gate, waiting: 1)
        let next = Task { await gate.enter() == .entered }
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
            return await gate.enter() == .entered
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

    func testAWaiterTimesOutAtItsDeadlineAndLeavesTheQueue() async throws {
        let gate = TransferGate(limit: 1)
        _ = await gate.enter()
        let watchdog = watchdog(gate)
        defer { watchdog.cancel() }
        let started = ContinuousClock.now
        let admission = await gate.enter(deadline: .now + .milliseconds(200))
        XCTAssertEqual(admission, .timedOut)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(200))
        XCTAssertEqual(gate.counts.waiting, 0)
        gate.leave()
        XCTAssertEqual(gate.counts.running, 0, "the timed-out waiter took no place")
    }

    func testAWaiterWhoseDeadlineHasPassedDoesNotQueue() async {
        let gate = TransferGate(limit: 1)
        _ = await gate.enter()
        let watchdog = watchdog(gate)
        defer { watchdog.cancel() }
        let admission = await gate.enter(deadline: .now - .seconds(1))
        XCTAssertEqual(admission, .timedOut)
        XCTAssertEqual(gate.counts.waiting, 0)
        gate.leave()
    }

    func testAFreePlaceIsTakenEvenPastTheDeadline() async {
        // The deadline bounds the wait only.
        let gate = TransferGate(limit: 1)
        let admission = await gate.enter(deadline: .now - .seconds(1))
        XCTAssertEqual(admission, .entered)
        gate.leave()
    }

    func testAPlaceFreedAfterAWaiterTimedOutGoesToTheNextWaiter() async throws {
        let gate = TransferGate(limit: 1)
        _ = await gate.enter()
        let watchdog = watchdog(gate)
        defer { watchdog.cancel() }
        let hurried = Task { await gate.enter(deadline: .now + .milliseconds(100)) }
        try await waitUntil(gate, waiting: 1)
        let patient = Task { await gate.enter() }
        try await waitUntil(gate, waiting: 2)
        let hurriedAdmission = await hurried.value
        XCTAssertEqual(hurriedAdmission, .timedOut)
        XCTAssertEqual(gate.counts.waiting, 1)
        gate.leave()
        let patientAdmission = await patient.value
        XCTAssertEqual(patientAdmission, .entered)
        XCTAssertEqual(gate.counts.running, 1)
        gate.leave()
        XCTAssertEqual(gate.counts.running, 0)
    }

    func testWaitersWithDeadlinesAreStillServedInOrder() async throws {
        let gate = TransferGate(limit: 1)
        _ = await gate.enter()
        let order = Recorder<Int>()
        var tasks: [Task<Void, Never>] = []
        for index in 0..<4 {
            tasks.append(Task {
                guard await gate.enter(deadline: .now + .seconds(30)) == .entered else { return }
                order.add(index)
                gate.leave()
            })
            try await waitUntil(gate, waiting: index + 1)
        }
        gate.leave()
        for task in tasks { await task.value }
        XCTAssertEqual(order.values, [0, 1, 2, 3])
        XCTAssertEqual(gate.counts.running, 0)
    }

    func testAPlaceFreedJustAsAWaiterTimesOutIsNeitherLostNorGivenTwice() async throws {
        // The place and the deadline race; whichever comes first decides, and the count stays right.
        let gate = TransferGate(limit: 1)
        for round in 0..<50 {
            _ = await gate.enter()
            let waiter = Task { await gate.enter(deadline: .now + .milliseconds(5)) }
            try await Task.sleep(for: .milliseconds(round % 10))  // either may come first
            gate.leave()
            if await waiter.value == .entered { gate.leave() }
            XCTAssertEqual(gate.counts.running, 0, "round \(round)")
            XCTAssertEqual(gate.counts.waiting, 0, "round \(round)")
        }
    }

    func testACancelledWaiterWithADeadlineLeavesAtOnce() async throws {
        let gate = TransferGate(limit: 1)
        _ = await gate.enter()
        let waiter = Task { await gate.enter(deadline: .now + .seconds(30)) }
        try await waitUntil(gate, waiting: 1)
        waiter.cancel()
        let admission = await waiter.value
        XCTAssertEqual(admission, .cancelled)
        XCTAssertEqual(gate.counts.waiting, 0)
        gate.leave()
        XCTAssertEqual(gate.counts.running, 0)
    }
}
