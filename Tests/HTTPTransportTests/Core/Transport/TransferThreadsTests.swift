import Foundation
@testable import HTTPTransport
import XCTest

/// The async sends' thread pool as a state machine: order of arrival, the per-origin share that
/// keeps a slow origin from starving the others, and one pool per session.
final class TransferThreadsTests: XCTestCase {
    /// A job that records its start and waits until released.
    private final class Gate: @unchecked Sendable {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
    }

    func testJobsRunInOrderOfArrival() {
        let pool = TransferThreads(maxThreads: 1, idleTimeout: 5)
        let order = Recorder<Int>()
        let done = DispatchSemaphore(value: 0)
        for index in 0..<20 {
            pool.run(origin: "http://a:80") {
                order.add(index)
                if index == 19 { done.signal() }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.values, Array(0..<20))
    }

    func testAnOriginHoldingItsShareLetsAnotherOriginsJobGoFirst() {
        let pool = TransferThreads(maxThreads: 2, maxPerOrigin: 1, idleTimeout: 5)
        let slow = Gate()
        let order = Recorder<String>()
        let otherDone = DispatchSemaphore(value: 0)
        let secondSlowDone = DispatchSemaphore(value: 0)
        pool.run(origin: "http://slow:80") {
            slow.started.signal()
            slow.release.wait()
            order.add("slow 1")
        }
        XCTAssertEqual(slow.started.wait(timeout: .now() + 10), .success)
        pool.run(origin: "http://slow:80") {
            order.add("slow 2")
            secondSlowDone.signal()
        }
        pool.run(origin: "http://fast:80") {
            order.add("fast")
            otherDone.signal()
        }
        // The fast origin's job runs while the slow origin's first job still holds its thread.
        XCTAssertEqual(otherDone.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.values, ["fast"])
        slow.release.signal()
        XCTAssertEqual(secondSlowDone.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.values, ["fast", "slow 1", "slow 2"])
    }

    func testNoMoreThreadsThanTheLimit() {
        let pool = TransferThreads(maxThreads: 3, idleTimeout: 5)
        let gates = (0..<6).map { _ in Gate() }
        for gate in gates {
            pool.run(origin: "http://a:80") {
                gate.started.signal()
                gate.release.wait()
            }
        }
        for gate in gates.prefix(2) { XCTAssertEqual(gate.started.wait(timeout: .now() + 10), .success) }
        XCTAssertLessThanOrEqual(pool.counts.threads, 3)
        for gate in gates { gate.release.signal() }
        for gate in gates.suffix(4) { XCTAssertEqual(gate.started.wait(timeout: .now() + 10), .success) }
    }

    func testAClosedPoolsThreadsEndOnceNoJobWaitsAndLaterJobsStillRun() {
        let pool = TransferThreads(maxThreads: 4, idleTimeout: 30)
        let gates = (0..<4).map { _ in Gate() }
        for gate in gates {
            pool.run {
                gate.started.signal()
                gate.release.wait()
            }
        }
        for gate in gates { XCTAssertEqual(gate.started.wait(timeout: .now() + 10), .success) }
        pool.close()
        XCTAssertEqual(pool.counts.threads, 4, "running jobs keep their threads")
        for gate in gates { gate.release.signal() }
        let deadline = Date().addingTimeInterval(10)
        while pool.counts.threads > 0, Date() < deadline { usleep(1_000) }
        XCTAssertEqual(pool.counts.threads, 0, "no thread idles once the pool is closed")
        let later = DispatchSemaphore(value: 0)
        pool.run { later.signal() }
        XCTAssertEqual(later.wait(timeout: .now() + 10), .success)
    }

    func testTheOriginKeyIsSchemeHostAndPort() {
        XCTAssertEqual(TransferThreads.origin(of: "HTTP://Example.COM/a?b"), "http://example.com:80")
        XCTAssertEqual(TransferThreads.origin(of: "https://example.com/"), "https://example.com:443")
        XCTAssertEqual(TransferThreads.origin(of: "http://127.0.0.1:8080/x"), "http://127.0.0.1:8080")
        XCTAssertEqual(TransferThreads.origin(of: "not a url"), "")
    }

    func testOneSessionsSlowSendsDoNotDelayAnotherSessionsAsyncSend() async throws {
        var configuration = Session.Configuration()
        configuration.maxConcurrentTransfers = 16
        let busy = HTTPTransport(session: Session(configuration: configuration))
        let other = HTTPTransport(session: Session(configuration: configuration))
        let finished = Recorder<String>()
        let slow = server.http + "/delay/2"
        let slowSends = (0..<20).map { _ in
            Task { _ = try? await busy.send(HTTPRequest(endpoint: slow)); finished.add("slow") }
        }
        // Wait until the busy session's transfers are all taken (4 queued), then send on the other session.
        let deadline = Date().addingTimeInterval(10)
        while busy.session.transferGate.counts != (16, 4), Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertEqual(busy.session.transferGate.counts.running, 16)
        _ = try await other.send(HTTPRequest(endpoint: server.http + "/get"))
        finished.add("other")
        for task in slowSends { await task.value }
        XCTAssertEqual(finished.values.first, "other", "the other session's send waited for the busy session's threads")
    }
}
