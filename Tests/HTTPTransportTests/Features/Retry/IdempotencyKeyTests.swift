import Foundation
import HTTPTransport
import XCTest

/// `RetryPolicy(idempotencyKeyHeader:)`: a POST or PATCH without the header gets a fresh UUID on
/// its first attempt and the same on every retry, and is retried like an idempotent request.
final class IdempotencyKeyTests: XCTestCase {
    /// A stub answering 503 `failures` times, then 200, recording every request's key.
    private final class KeyRecorder: Sendable {
        let keys = Protected<[String?]>([])
        let failures: Int

        init(failures: Int) { self.failures = failures }

        var engine: StubEngine {
            StubEngine { request in
                let count = self.keys.withLock { keys in
                    keys.append(request.value(forHTTPHeaderField: "Idempotency-Key"))
                    return keys.count
                }
                return RawResponse(request: request, statusCode: count <= self.failures ? .serviceUnavailable : .ok)
            }
        }

        func transport(keyHeader: String? = "Idempotency-Key") -> HTTPTransport {
            HTTPTransport(session: Session(engine: engine),
                          retrier: RetryPolicy(maxAttempts: 4, baseDelay: 0, idempotencyKeyHeader: keyHeader))
        }
    }

    func testAPOSTGetsAFreshKeyAndTheSameOnEveryRetry() throws {
        let recorder = KeyRecorder(failures: 2)
        XCTAssertTrue(recorder.transport().send(request: HTTPRequest(httpMethod: .post, endpoint: "http://api.test/orders")).isSuccess)
        let keys = recorder.keys.value
        XCTAssertEqual(keys.count, 3, "retried like an idempotent request")
        let key = try XCTUnwrap(keys.first ?? nil)
        XCTAssertNotNil(UUID(uuidString: key))
        XCTAssertEqual(Set(keys), [key])

        let again = KeyRecorder(failures: 0)
        _ = again.transport().send(request: HTTPRequest(httpMethod: .post, endpoint: "http://api.test/orders"))
        XCTAssertNotEqual(again.keys.value.first ?? nil, key, "each send has its own key")
    }

    func testAPATCHGetsAKeyToo() {
        let recorder = KeyRecorder(failures: 1)
        XCTAssertTrue(recorder.transport().send(request: HTTPRequest(httpMethod: .patch, endpoint: "http://api.test/o/1")).isSuccess)
        XCTAssertEqual(recorder.keys.value.count, 2)
        XCTAssertEqual(Set(recorder.keys.value).count, 1)
    }

    func testAKeyTheRequestSetsIsKept() {
        let recorder = KeyRecorder(failures: 1)
        let request = HTTPRequest(httpMethod: .post, endpoint: "http://api.test/orders", headers: ["idempotency-key": "order-42"])
        XCTAssertTrue(recorder.transport().send(request: request).isSuccess)
        XCTAssertEqual(recorder.keys.value, ["order-42", "order-42"])
    }

    func testOtherMethodsGetNoKey() {
        let recorder = KeyRecorder(failures: 1)
        for method in [HTTPRequest.HTTPMethod.get, .put, .delete] {
            _ = recorder.transport().send(request: HTTPRequest(httpMethod: method, endpoint: "http://api.test/o/1"))
        }
        XCTAssertEqual(recorder.keys.value, [nil, nil, nil, nil])
    }

    func testWithoutTheHeaderAPOSTIsNeitherKeyedNorRetried() {
        let recorder = KeyRecorder(failures: 1)
        XCTAssertFalse(recorder.transport(keyHeader: nil).send(request: HTTPRequest(httpMethod: .post, endpoint: "http://api.test/o")).isSuccess)
        XCTAssertEqual(recorder.keys.value, [nil])
    }

    func testTheAsyncSendKeepsOneKeyAcrossRetries() async throws {
        let recorder = KeyRecorder(failures: 2)
        _ = try await recorder.transport().send(HTTPRequest(httpMethod: .post, endpoint: "http://api.test/orders"))
        XCTAssertEqual(recorder.keys.value.count, 3)
        XCTAssertEqual(Set(recorder.keys.value).count, 1)
        XCTAssertNotNil(recorder.keys.value.first ?? nil)
    }
}
