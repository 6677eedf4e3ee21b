import Foundation
@testable import HTTPTransport
import XCTest

/// `HTTPResponse.headers` is made once per response, whoever reads it first, from any thread.
final class ResponseHeaderDictionaryTests: XCTestCase {
    func testHeadersDictionaryIsMadeOnceForManyReadersOnManyThreads() {
        let once = HeaderDictionaryCache()
        let makes = Protected(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<100 {
                let value = once.value {
                    makes.withLock { $0 += 1 }
                    return ["A": "1"]
                }
                XCTAssertEqual(value, ["A": "1"])
            }
        }
        // A race between the first readers may compute it more than once, never once per read.
        XCTAssertLessThanOrEqual(makes.value, 8)
        XCTAssertGreaterThanOrEqual(makes.value, 1)
    }

    func testHeadersDictionaryJoinsRepeatedNamesAndStaysTheSame() {
        let response = HTTPResponse(httpStatus: .ok, headers: HTTPHeaders([.init(name: "Set-Cookie", value: "a=1"), .init(name: "set-cookie", value: "b=2"), .init(name: "X", value: "y")]),
                                    request: RawRequest(url: URL(fileURLWithPath: "/")))
        XCTAssertEqual(response.headers, ["Set-Cookie": "a=1, b=2", "X": "y"])
        XCTAssertEqual(response.headers, response.headers)
    }
}
