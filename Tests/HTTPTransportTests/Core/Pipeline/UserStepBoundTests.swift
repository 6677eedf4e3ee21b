import Foundation
import HTTPTransport
import XCTest

/// The bound on a user's step (`HTTPSendAction.maxActions`): a step may ask for that many
/// actions (forward or wait) in one send and still answer; one more ends the send. Against a
/// `StubEngine` (the bound is the point, not the network), blocking and async.
final class UserStepBoundTests: XCTestCase {
    /// Forwards `forwards` times in all (the first from `start`), then answers the last response.
    private struct RepeatingStep: HTTPSendStep {
        let forwards: Int

        func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: (request: RawRequest, sent: Int), action: HTTPSendAction) {
            ((request, 1), .forward(request))
        }

        func resume(_ exchange: inout (request: RawRequest, sent: Int), with response: RawResponse,
                    context: HTTPSendContext) -> HTTPSendAction {
            guard exchange.sent < forwards else { return .answer(response) }
            exchange.sent += 1
            return .forward(exchange.request)
        }
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.withLock { value += 1; return value } }
        var count: Int { lock.withLock { value } }
    }

    private func transport(forwards: Int, counter: Counter) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.networkSteps = [RepeatingStep(forwards: forwards)]
        let engine = StubEngine { request in
            RawResponse(request: request, statusCode: .ok, data: Data("\(counter.next())".utf8))
        }
        return HTTPTransport(session: Session(configuration: configuration, engine: engine))
    }

    func testAStepMayAskForExactlyMaxActionsAndStillAnswer() async throws {
        let limit = HTTPSendAction.maxActions
        let blocking = Counter()
        let response = try XCTUnwrap(transport(forwards: limit, counter: blocking)
            .send(request: HTTPRequest(endpoint: "http://api.invalid/bounded")).value)
        XCTAssertEqual(response.body.flatMap { String(data: $0, encoding: .utf8) }, "\(limit)")
        XCTAssertEqual(blocking.count, limit)

        let async = Counter()
        let asyncResponse = try await transport(forwards: limit, counter: async)
            .send(HTTPRequest(endpoint: "http://api.invalid/bounded"))
        XCTAssertEqual(asyncResponse.body.flatMap { String(data: $0, encoding: .utf8) }, "\(limit)")
        XCTAssertEqual(async.count, limit)
    }

    func testOneActionMoreThanMaxActionsEndsTheSendAndTheLastResponseIsNotAsked() async throws {
        let limit = HTTPSendAction.maxActions
        let blocking = Counter()
        let error = try XCTUnwrap(transport(forwards: limit + 1, counter: blocking)
            .send(request: HTTPRequest(endpoint: "http://api.invalid/unbounded")).error)
        XCTAssertEqual(error.code, .interceptorFailed)
        XCTAssertTrue(error.message.contains("RepeatingStep"), error.message)
        // The refused forward never reached the engine.
        XCTAssertEqual(blocking.count, limit)

        let async = Counter()
        do {
            _ = try await transport(forwards: limit + 1, counter: async).send(HTTPRequest(endpoint: "http://api.invalid/unbounded"))
            XCTFail("The send should have failed")
        } catch {
            XCTAssertEqual(error.code, .interceptorFailed)
        }
        XCTAssertEqual(async.count, limit)
    }
}
