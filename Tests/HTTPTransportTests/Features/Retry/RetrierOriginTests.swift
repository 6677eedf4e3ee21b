import Foundation
import HTTPTransport
import XCTest

/// `HTTPTransportRetrier` refreshes credentials only for failures its own origin answered: a 401
/// from the host a redirect led to says nothing about our token (and a retry would only send
/// it there again).
final class RetrierOriginTests: XCTestCase {
    override func setUpWithError() throws {
        _ = try sendOK(HTTPTransport(), HTTPRequest(httpMethod: .post, endpoint: server.http + "/auth/reset"))
    }

    /// A delegate counting its refreshes (which change nothing: the server keeps refusing).
    private struct CountingRefresher: HTTPTransportRetrierDelegate {
        let refreshes = Recorder<Void>()
        func refresh() throws { refreshes.add(()) }
    }

    func testA401FromAnotherOriginAfterARedirectIsNotRefreshed() throws {
        let delegate = CountingRefresher()
        let retrier = HTTPTransportRetrier(delegate: delegate)
        let transport = HTTPTransport(requestInterceptors: [SetHeaderInterceptor(name: "Authorization", value: "Bearer OURS")],
                                      retrier: retrier)
        let result = transport.send(request: HTTPRequest(endpoint: redirect(from: server.http, to: otherOrigin + "/auth/protected")))
        let error = try XCTUnwrap(result.error)
        XCTAssertEqual(error.code, .httpStatus)
        XCTAssertEqual(error.httpStatusCode, .unauthorized)
        XCTAssertEqual(error.url, otherOrigin + "/auth/protected")
        XCTAssertEqual(retrier.refreshCount, 0)
        XCTAssertEqual(delegate.refreshes.count, 0)
    }

    func testA401FromTheFirstOriginAfterASameOriginRedirectRefreshesOnce() throws {
        let delegate = CountingRefresher()
        let retrier = HTTPTransportRetrier(delegate: delegate)
        let attempts = Recorder<URL>()
        let recording = ClosureRequestInterceptor { request in
            attempts.add(request.url)
            return request
        }
        let transport = HTTPTransport(requestInterceptors: [recording], retrier: retrier)
        let result = transport.send(request: HTTPRequest(endpoint: redirect(from: server.http, to: server.http + "/auth/protected")))
        XCTAssertEqual(result.error?.httpStatusCode, .unauthorized)
        XCTAssertEqual(retrier.refreshCount, 1)
        XCTAssertEqual(delegate.refreshes.count, 1)
        // Two whole attempts, each through the redirect.
        XCTAssertEqual(attempts.values.map(\.path), ["/redirect-to", "/auth/protected", "/redirect-to", "/auth/protected"])
    }
}
