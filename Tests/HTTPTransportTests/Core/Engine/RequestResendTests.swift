import Foundation
import HTTPTransport
import XCTest

/// A request that must be sent once is never resent by libcurl behind the caller's back: when a
/// kept-alive connection dies after the server read the request and before it answered, a POST or
/// PATCH fails, saying it may have been processed; idempotent methods may still be resent.
final class RequestResendTests: XCTestCase {
    private func uniqueKey() -> String { UUID().uuidString }

    /// Sends `request` on a connection kept alive by an earlier GET; the server reads it whole and
    /// closes without answering. Returns the result and how many copies the server read.
    private func sendOnWarmConnection(_ request: some HTTPRequestEnvelope, key: String,
                                      retrier: (any HTTPRetrier)? = nil) throws -> (HTTPTransport.Result, Int) {
        let transport = HTTPTransport(retrier: retrier)
        let warm = try sendOK(transport, HTTPRequest(endpoint: server.http + "/get"))
        XCTAssertEqual(warm.httpStatus, .ok)
        let result = transport.send(request: request, control: TransferControl())
        let count = try sendOK(transport, HTTPRequest(endpoint: server.http + "/fault/read-then-close/count?key=\(key)"))
        let copies = try XCTUnwrap(try count.getJSONDictionary()?["count"] as? Int)
        return (result, copies)
    }

    private func endpoint(_ key: String) -> String { server.http + "/fault/read-then-close?key=\(key)" }

    func testAPostWithABodyIsNotResentWhenTheReusedConnectionDies() throws {
        let key = uniqueKey()
        let request = HTTPRequest(httpMethod: .post, endpoint: endpoint(key),
                                  parameters: [HTTPRequestParameters(parameters: ["order": 42], encoding: .json)])
        let (result, copies) = try sendOnWarmConnection(request, key: key)
        XCTAssertEqual(copies, 1, "the server read the POST \(copies) times")
        XCTAssertEqual(result.error?.code, .badResponse)
        XCTAssertTrue(result.error?.message.contains("may have processed it") ?? false, "\(String(describing: result.error))")
    }

    func testAPostWithoutABodyIsNotResent() throws {
        let key = uniqueKey()
        let (result, copies) = try sendOnWarmConnection(HTTPRequest(httpMethod: .post, endpoint: endpoint(key)), key: key)
        XCTAssertEqual(copies, 1)
        XCTAssertEqual(result.error?.code, .badResponse)
    }

    func testAPatchUploadStreamedFromAFileIsNotResent() throws {
        let key = uniqueKey()
        let directory = try temporaryDirectory("resend")
        let file = directory.appendingPathComponent("body.bin")
        try Data(repeating: 7, count: 200_000).write(to: file)
        let request = HTTPRequest(httpMethod: .patch, endpoint: endpoint(key)).uploading(file: file)
        let (result, copies) = try sendOnWarmConnection(request, key: key)
        XCTAssertEqual(copies, 1)
        XCTAssertEqual(result.error?.code, .badResponse)
    }

    func testADataUploadIsNotResent() throws {
        let key = uniqueKey()
        let request = DataUploadHTTPRequest(endpoint: endpoint(key), data: Data("payment".utf8))
        let (result, copies) = try sendOnWarmConnection(request, key: key)
        XCTAssertEqual(copies, 1)
        XCTAssertEqual(result.error?.code, .badResponse)
    }

    func testAnIdempotentPutMayStillBeResentOnAFreshConnection() throws {
        let key = uniqueKey()
        let request = HTTPRequest(httpMethod: .put, endpoint: endpoint(key),
                                  parameters: [HTTPRequestParameters(parameters: ["name": "x"], encoding: .json)])
        let (result, copies) = try sendOnWarmConnection(request, key: key)
        // libcurl resent it once on a fresh connection, which the server closed too.
        XCTAssertEqual(copies, 2)
        XCTAssertNotNil(result.error)
    }

    func testARetryPolicyThatAllowsItResendsThePostVisibly() throws {
        let key = uniqueKey()
        let retries = Recorder<Int>()
        let policy = RetryPolicy(maxAttempts: 2, retriesNonIdempotentRequests: true, baseDelay: 0,
                                 onRetry: { context, _ in retries.add(context.attempt) })
        let request = HTTPRequest(httpMethod: .post, endpoint: endpoint(key))
        let (result, copies) = try sendOnWarmConnection(request, key: key, retrier: policy)
        XCTAssertEqual(copies, 2, "one attempt, one retry the policy chose")
        XCTAssertEqual(retries.values, [1])
        XCTAssertEqual(result.error?.code, .badResponse)
    }

    func testTheDefaultRetryPolicyDoesNotResendThePost() throws {
        let key = uniqueKey()
        let request = HTTPRequest(httpMethod: .post, endpoint: endpoint(key))
        let (_, copies) = try sendOnWarmConnection(request, key: key, retrier: RetryPolicy(baseDelay: 0))
        XCTAssertEqual(copies, 1)
    }

    func testPostsKeepReusingTheKeptAliveConnection() throws {
        let transport = HTTPTransport()
        var reused: [Bool] = []
        for index in 0..<5 {
            let request = HTTPRequest(httpMethod: .post, endpoint: server.http + "/post",
                                      parameters: [HTTPRequestParameters(parameters: ["n": index], encoding: .json)])
            reused.append(try sendOK(transport, request).metrics.connectionReused)
        }
        XCTAssertEqual(reused, [false, true, true, true, true])
    }

    func testAConditionalRequestIsSentOnce() throws {
        let key = uniqueKey()
        let request = HTTPRequest(httpMethod: .put, endpoint: endpoint(key), headers: ["If-Match": "\"v1\""])
        let (result, copies) = try sendOnWarmConnection(request, key: key)
        XCTAssertEqual(copies, 1)
        XCTAssertEqual(result.error?.code, .badResponse)
    }

    func testACacheRevalidationOnAConnectionTheServerClosesIsSentOnce() throws {
        let key = uniqueKey()
        var configuration = Session.Configuration()
        configuration.cache = HTTPCache()
        let transport = HTTPTransport(session: Session(configuration: configuration))
        let request = HTTPRequest(endpoint: server.http + "/fault/close-on-revalidation?key=\(key)")
        XCTAssertEqual(try sendOK(transport, request).getString(), "stored")
        _ = transport.send(request: request)  // stale: revalidated on the kept-alive connection
        let count = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/fault/read-then-close/count?key=\(key)"))
        XCTAssertEqual(try count.getJSONDictionary()?["count"] as? Int, 1)
    }
}
