import Foundation
import HTTPTransport
import XCTest

/// The order interceptors run in, and what a throwing one stops, through `StubEngine` (no
/// server): the request's own (given to `init`, then added with `with(interceptors:)`), then
/// its base request's, then the transport's; response interceptors in the same order.
final class InterceptorChainRuleTests: XCTestCase {
    private let url = "http://api.stub.test/"

    /// Adds `X-Order: <name>` to the request (every interceptor appends its own value).
    private func stamp(_ name: String) -> ClosureRequestInterceptor {
        ClosureRequestInterceptor { request in
            var request = request
            request.addValue(name, forHTTPHeaderField: "X-Order")
            return request
        }
    }

    private func note(_ name: String, in log: Recorder<String>) -> ClosureResponseInterceptor {
        ClosureResponseInterceptor { response in
            log.add(name)
            return response
        }
    }

    func testRequestInterceptorsRunOwnThenBaseThenTransport() throws {
        let stub = RecordingStub()
        let base = HTTPRequest(endpoint: url, requestInterceptors: [stamp("base")])
        let request = HTTPRequest(endpoint: "items", requestInterceptors: [stamp("own-init")], base: base)
            .with(interceptors: [stamp("own-added")])
        _ = try stub.transport(requestInterceptors: [stamp("transport-1"), stamp("transport-2")]).send(request: request).get()
        XCTAssertEqual(stub.requests.first?.headers.values("X-Order"),
                       ["own-init", "own-added", "base", "transport-1", "transport-2"])
    }

    func testResponseInterceptorsRunOwnThenBaseThenTransport() throws {
        let log = Recorder<String>()
        let base = HTTPRequest(endpoint: url, responseInterceptors: [note("base", in: log)])
        let request = HTTPRequest(endpoint: "items", responseInterceptors: [note("own-init", in: log)], base: base)
            .with(interceptors: [note("own-added", in: log)])
        let transport = RecordingStub().transport(responseInterceptors: [note("transport", in: log)])
        _ = try transport.send(request: request).get()
        XCTAssertEqual(log.values, ["own-init", "own-added", "base", "transport"])
    }

    func testAThrowingRequestInterceptorSendsNothingAndStopsTheChain() throws {
        struct Refusal: Error {}
        let stub = RecordingStub()
        let after = Recorder<String>()
        let request = HTTPRequest(endpoint: url).with(interceptors: [
            ClosureRequestInterceptor { _ in throw Refusal() },
            ClosureRequestInterceptor { request in
                after.add("ran")
                return request
            },
        ])
        let error = try XCTUnwrap(stub.transport().send(request: request).error)
        XCTAssertEqual(error.code, .interceptorFailed)
        XCTAssertTrue(error.underlyingError is Refusal)
        XCTAssertEqual(error.url, url)
        XCTAssertEqual(stub.requests.count, 0, "nothing reached the engine")
        XCTAssertEqual(after.count, 0, "the interceptors after it did not run")
    }

    func testAnInterceptorsOwnTransportErrorIsKept() throws {
        let stub = RecordingStub()
        let request = HTTPRequest(endpoint: url).with(interceptors: [ClosureRequestInterceptor { _ in
            throw HTTPTransportError(code: .encodingFailed, message: "no signature key")
        }])
        let error = try XCTUnwrap(stub.transport().send(request: request).error)
        XCTAssertEqual(error.code, .encodingFailed)
        XCTAssertEqual(error.message, "no signature key")
        XCTAssertEqual(stub.requests.count, 0)
    }

    // MARK: Interceptors that only handle failures

    /// Counts the responses handed to it; `interceptsSuccesses` as given.
    private struct CountingResponseInterceptor: HTTPResponseInterceptor {
        let seen = Recorder<Int>()
        let interceptsSuccesses: Bool

        func intercept(response: RawResponse) -> RawResponse {
            seen.add(response.statusCode?.rawValue ?? 0)
            return response
        }
    }

    func testSuccessesSkipInterceptorsThatOnlyHandleFailures() throws {
        let failuresOnly = CountingResponseInterceptor(interceptsSuccesses: false)
        let everything = CountingResponseInterceptor(interceptsSuccesses: true)
        let stub = RecordingStub { request in
            RawResponse(request: request, statusCode: request.url.path == "/fail" ? .internalServerError : .ok, data: Data())
        }
        let transport = stub.transport(responseInterceptors: [failuresOnly, everything])
        _ = try transport.send(request: HTTPRequest(endpoint: url + "ok")).get()
        XCTAssertEqual(failuresOnly.seen.values, [])
        XCTAssertEqual(everything.seen.values, [200])
        XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: url + "fail")).error?.code, .httpStatus)
        XCTAssertEqual(failuresOnly.seen.values, [500])
        XCTAssertEqual(everything.seen.values, [200, 500])
    }

    func testAResponseInterceptorMayClearTheFailure() throws {
        let accept404 = ClosureResponseInterceptor { response in
            var response = response
            if response.statusCode == .notFound { response.error = nil }
            return response
        }
        let stub = RecordingStub { RawResponse(request: $0, statusCode: .notFound, data: Data("gone".utf8)) }
        let response = try stub.transport(responseInterceptors: [accept404]).send(request: HTTPRequest(endpoint: url)).get()
        XCTAssertEqual(response.httpStatus, .notFound)
        XCTAssertEqual(response.getString(), "gone")
    }
}
