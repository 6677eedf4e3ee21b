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

    func testADictionaryMadeBeforeTheResponseChangedIsNotReadAfterwards() {
        var raw = RawResponse(request: RawRequest(url: URL(fileURLWithPath: "/")), statusCode: .ok, headers: ["A": "1"])
        do {
            let earlier = HTTPResponse(httpStatus: .ok, raw: raw)
            XCTAssertEqual(earlier.headers, ["A": "1"])
        }
        raw.headers.add("B", "2")  // the only reference now: changed in place
        XCTAssertEqual(HTTPResponse(httpStatus: .ok, raw: raw).headers, ["A": "1", "B": "2"])
        let shared = HTTPResponse(httpStatus: .ok, raw: raw)
        XCTAssertEqual(shared.headers, ["A": "1", "B": "2"])
        raw.headers.add("C", "3")  // shared with `shared`: copied first, which keeps its own
        XCTAssertEqual(shared.headers, ["A": "1", "B": "2"])
        XCTAssertEqual(HTTPResponse(httpStatus: .ok, raw: raw).headers, ["A": "1", "B": "2", "C": "3"])
    }
}
