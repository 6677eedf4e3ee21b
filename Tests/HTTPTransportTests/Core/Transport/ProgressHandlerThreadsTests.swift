import Foundation
@testable import HTTPTransport
import XCTest

/// Async sends' progress handlers run on a few threads of the session's, each send's reports in
/// order: handlers that block hold those threads, not one thread per send.
final class ProgressHandlerThreadsTests: XCTestCase {
    private var threadCount: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    func testAHundredBlockingProgressHandlersHoldABoundedNumberOfThreads() async throws {
        let transport = HTTPTransport(session: Session())
        let release = NSCondition()
        let state = Protected((entered: 0, released: false))
        let blocking: @Sendable (TransferProgress) -> Bool = { _ in
            state.withLock { $0.entered += 1 }
            release.lock()
            while !state.value.released { release.wait() }
            release.unlock()
            return true
        }
        _ = try await transport.send(HTTPRequest(endpoint: server.http + "/json"))
        let baseline = threadCount
        let url = server.http + "/bytes/20000"
        let sends = (0..<100).map { _ in
            Task { try await transport.send(HTTPRequest(endpoint: url), progress: blocking) }
        }
        // Every handler would have started by now if each had its own thread (bounded wait).
        let deadline = Date().addingTimeInterval(3)
        while state.value.entered < 100, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let during = threadCount
        // At most the progress threads and the executor's (busy with the sends' steps) are new.
        XCTAssertLessThanOrEqual(state.value.entered, Session.executorThreads)
        XCTAssertLessThanOrEqual(during, baseline + 2 * Session.executorThreads + 4, "threads: \(during), before: \(baseline)")
        release.withLock {
            state.withLock { $0.released = true }
            release.broadcast()
        }
        for send in sends {
            let response = try await send.value
            XCTAssertEqual(response.body?.count, 20_000)
        }
    }

    func testEachSendsProgressReportsArriveInOrder() async throws {
        let transport = HTTPTransport(session: Session())
        let url = server.http + "/bytes/300000"
        try await withThrowingTaskGroup(of: [Int64].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let reports = Recorder<Int64>()
                    _ = try await transport.send(HTTPRequest(endpoint: url), progress: { progress in
                        reports.add(progress.bytesReceived)
                        return true
                    })
                    return reports.values
                }
            }
            for try await reports in group {
                XCTAssertEqual(reports, reports.sorted(), "in order")
                XCTAssertEqual(reports.last, 300_000)
            }
        }
    }
}
