import Foundation
@testable import HTTPTransport
import XCTest

/// The session's transfer loop with the test server: cancellation, its thread's life, and user
/// code (interceptors, progress handlers) that blocks without stalling other transfers.
final class TransferLoopTests: XCTestCase {
    private func transport(maxConcurrentTransfers: Int = 1_000, interceptors: [any HTTPRequestInterceptor] = []) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.maxConcurrentTransfers = maxConcurrentTransfers
        return HTTPTransport(session: Session(configuration: configuration), requestInterceptors: interceptors)
    }

    func testCancellingATaskTakesItsTransferOffTheLoopAtOnceAndTheOthersGoOn() async throws {
        let transport = transport()
        let (slowURL, otherURL) = (server.http + "/delay/20", server.http + "/delay/0.3")
        let slow = Task { try await transport.send(HTTPRequest(endpoint: slowURL)) }
        let other = Task { try await transport.send(HTTPRequest(endpoint: otherURL)) }
        // Cancel once the slow request reached the server.
        let deadline = Date().addingTimeInterval(10)
        while transport.session.transferGate.counts.running < 2, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let started = ContinuousClock.now
        slow.cancel()
        do {
            _ = try await slow.value
            XCTFail("a cancelled send succeeded")
        } catch let error as HTTPTransportError {
            XCTAssertEqual(error.code, .cancelled)
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        let otherStatus = try await other.value.httpStatus.rawValue
        XCTAssertEqual(otherStatus, 200)
        XCTAssertEqual(transport.session.transferGate.counts.running, 0)
    }

    func testTheLoopThreadStartsOnFirstUseAndEndsWithTheSession() async throws {
        var transport: HTTPTransport? = HTTPTransport(session: Session())
        weak let engine = transport?.session.engine as? CurlEngine
        XCTAssertEqual(engine?.loop?.counts.threadRunning, false)
        _ = try await transport?.send(HTTPRequest(endpoint: server.http + "/get"))
        XCTAssertEqual(engine?.loop?.counts.threadRunning, true)
        let loop = try XCTUnwrap(engine?.loop)
        transport = nil
        XCTAssertNil(engine, "the session's engine outlived its transport")
        XCTAssertEqual(loop.counts.threadRunning, false)
    }

    func testAProgressHandlerThatBlocksDoesNotStallTheSessionsOtherTransfers() async throws {
        let transport = transport()
        let release = DispatchSemaphore(value: 0)
        let blocked = Protected(false)
        let dripURL = server.http + "/drip?bytes=5&delay=0.05"
        let stuck = Task {
            try await transport.send(HTTPRequest(endpoint: dripURL)) { _ in
                if blocked.withLock({ was in defer { was = true }; return !was }) { release.wait() }  // the first report blocks until the other send is done
                return true
            }
        }
        let deadline = Date().addingTimeInterval(10)
        while !blocked.value, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        XCTAssertTrue(blocked.value)
        let response = try await transport.send(HTTPRequest(endpoint: server.http + "/get"))
        XCTAssertEqual(response.httpStatus.rawValue, 200)
        release.signal()
        let body = try await stuck.value.body
        XCTAssertEqual(body?.count, 5)
    }

    func testARequestInterceptorThatBlocksDoesNotStallTheSessionsOtherSends() async throws {
        let release = DispatchSemaphore(value: 0)
        let blocked = Protected(false)
        let blocker = ClosureRequestInterceptor { request in
            if request.url.path == "/anything/blocked" {
                blocked.value = true
                release.wait()
            }
            return request
        }
        let transport = transport(interceptors: [blocker])
        let blockedURL = server.http + "/anything/blocked"
        let stuck = Task { try await transport.send(HTTPRequest(endpoint: blockedURL)) }
        let deadline = Date().addingTimeInterval(10)
        while !blocked.value, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let others = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                let url = server.http + "/anything/\(index)"
                group.addTask { try await transport.send(HTTPRequest(endpoint: url)).httpStatus.rawValue }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        XCTAssertEqual(others, Array(repeating: 200, count: 20))
        release.signal()
        let stuckStatus = try await stuck.value.httpStatus.rawValue
        XCTAssertEqual(stuckStatus, 200)
    }

    func testAQueuedSendsTimeOutStartsWhenItStarts() async throws {
        let transport = transport(maxConcurrentTransfers: 1)
        let url = server.http + "/delay/1"
        async let first = transport.send(HTTPRequest(endpoint: url, timeout: 1.8))
        async let second = transport.send(HTTPRequest(endpoint: url, timeout: 1.8))
        // Together they take two seconds, longer than either time-out: each counts its own second.
        let (a, b) = try await (first, second)
        XCTAssertEqual([a.httpStatus.rawValue, b.httpStatus.rawValue], [200, 200])
    }
}
