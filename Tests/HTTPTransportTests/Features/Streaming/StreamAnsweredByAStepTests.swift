import Foundation
import HTTPTransport
import XCTest

/// A streamed request answered whole by a step below the hops (a user's step serving from its
/// own store, on a request value of its own): the body still goes to the stream's consumer,
/// which the hop holds, whatever request the answer carries.
final class StreamAnsweredByAStepTests: XCTestCase {
    /// Answers every request itself on a new request value (which carries no stream).
    private struct StoreStep: HTTPSendStep {
        func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Void, action: HTTPSendAction) {
            let own = RawRequest(url: request.url)
            return ((), .answer(RawResponse(request: own, statusCode: .ok, data: Data("from the store".utf8))))
        }

        func resume(_ exchange: inout Void, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
            .answer(response)
        }
    }

    private func transport() -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.networkSteps = [StoreStep()]
        return HTTPTransport(session: Session(configuration: configuration))
    }

    func testTheHandlerGetsTheBodyOfAnAnswerOnARequestOfTheStepsOwn() throws {
        let received = Protected(Data())
        let request = HTTPRequest(endpoint: server.http + "/not-asked").streaming { chunk in
            received.withLock { $0.append(chunk) }
            return true
        }
        let response = try sendOK(transport(), request)
        XCTAssertEqual(String(data: received.value, encoding: .utf8), "from the store")
        XCTAssertNil(response.body, "the body went to the handler, not to memory")
    }

    func testAStreamGetsTheHeadAndBodyOfAnAnswerOnARequestOfTheStepsOwn() async throws {
        let stream = try await transport().stream(HTTPRequest(endpoint: server.http + "/not-asked"))
        XCTAssertEqual(stream.httpStatus, .ok)
        var body = Data()
        for try await chunk in stream.body { body.append(chunk) }
        XCTAssertEqual(String(data: body, encoding: .utf8), "from the store")
    }
}
