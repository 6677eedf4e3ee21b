import Foundation
@testable import HTTPTransport
import XCTest

/// A session's threads (its transfer loop's, its executor's, its transfer threads') end with
/// the session, instead of idling for half a minute each.
final class SessionThreadsLifetimeTests: XCTestCase {
    private var threadCount: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    /// Polls (bounded) until at most `limit` threads are alive; the count last seen.
    private func threads(fallingTo limit: Int, within seconds: TimeInterval) async throws -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        while threadCount > limit, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return threadCount
    }

    func testFiftyShortLivedSessionsLeaveNoThreadsBehind() async throws {
        // Warm up what the process keeps anyway (the test server's side, the cooperative pool).
        _ = try await HTTPTransport().send(HTTPRequest(endpoint: server.http + "/json"))
        let baseline = try await threads(fallingTo: 0, within: 0)
        for _ in 0..<50 {
            let transport = HTTPTransport(session: Session())
            let response = try await transport.send(HTTPRequest(endpoint: server.http + "/json"))
            XCTAssertEqual(response.httpStatus.rawValue, 200)
        }
        let left = try await threads(fallingTo: baseline + 4, within: 10)
        XCTAssertLessThanOrEqual(left, baseline + 4, "threads alive: \(left), before the sessions: \(baseline)")
    }

    func testABlockingFanOutsSessionLeavesNoThreadsBehind() async throws {
        _ = HTTPTransport().send(requests: [HTTPRequest(endpoint: server.http + "/json")])
        let baseline = threadCount
        for _ in 0..<20 {
            let results = HTTPTransport(session: Session()).send(requests: [HTTPRequest(endpoint: server.http + "/json")])
            XCTAssertTrue(results.allSatisfy(\.isSuccess))
        }
        let left = try await threads(fallingTo: baseline + 4, within: 10)
        XCTAssertLessThanOrEqual(left, baseline + 4, "threads alive: \(left), before the sessions: \(baseline)")
    }
}
