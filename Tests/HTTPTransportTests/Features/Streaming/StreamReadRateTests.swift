@testable import HTTPTransport
import XCTest

/// The wall time of a 256 MiB body read through `stream(_:).body` as fast as possible, eight runs
/// (a lost wake-up shows as a run seconds longer than the others). Opt-in, as it measures:
/// `STREAM_READ_RATE=1 swift test --filter StreamReadRateTests`; `STREAM_READ_URL` names another
/// server's 256 MiB body (nginx), the test server's `/stream-bytes` otherwise.
final class StreamReadRateTests: XCTestCase {
    func testEightReadsOfA256MiBStreamAndTheTimeToFirstByte() async throws {
        try XCTSkipUnless(ProcessInfo.processInfo.environment["STREAM_READ_RATE"] != nil, "a measurement (STREAM_READ_RATE=1)")
        let transport = HTTPTransport()
        let size = 256 << 20
        let url = ProcessInfo.processInfo.environment["STREAM_READ_URL"] ?? server.http + "/stream-bytes/\(size)"
        var seconds: [Double] = []
        var firstByte: [Double] = []
        for _ in 0..<8 {
            let clock = ContinuousClock()
            let start = clock.now
            let stream = try await transport.stream(HTTPRequest(endpoint: url))
            var count = 0
            var first: Duration?
            for try await chunk in stream.body {
                if first == nil { first = clock.now - start }
                count += chunk.count
            }
            XCTAssertEqual(count, size)
            seconds.append(Self.seconds(clock.now - start))
            firstByte.append(Self.seconds(first ?? .zero))
        }
        print("stream(_:).body, 256 MiB, 8 runs (s):", seconds.map { String(format: "%.2f", $0) }.joined(separator: " "))
        print("time to first byte (ms):", firstByte.map { String(format: "%.1f", $0 * 1000) }.joined(separator: " "))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
