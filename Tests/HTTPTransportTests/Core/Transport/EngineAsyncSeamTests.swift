import Foundation
@testable import HTTPTransport
import XCTest

/// The engine seam's async way (`HTTPEngine.executeAsync`): an async send asks the engine, never
/// its type; an engine without one has its blocking `execute` run on the session's transfer
/// threads, not on the task's.
final class EngineAsyncSeamTests: XCTestCase {
    /// Answers with which of its two ways ran, and on which thread.
    private struct TwoWayEngine: HTTPEngine {
        func execute(_ request: RawRequest, control: TransferControl) -> RawResponse {
            RawResponse(request: request, statusCode: .ok, data: Data("blocking".utf8))
        }

        func executeAsync(_ request: RawRequest, control: TransferControl) async -> RawResponse {
            RawResponse(request: request, statusCode: .ok, data: Data("async".utf8))
        }
    }

    private let url = "http://127.0.0.1:9/seam"

    func testAnAsyncSendTakesTheEnginesAsyncWayAndABlockingSendItsBlockingOne() async throws {
        let transport = HTTPTransport(session: Session(engine: TwoWayEngine()))
        let awaited = try await transport.send(HTTPRequest(endpoint: url))
        XCTAssertEqual(awaited.body.map { String(decoding: $0, as: UTF8.self) }, "async")
        let blocking = try transport.send(request: HTTPRequest(endpoint: url)).get()
        XCTAssertEqual(blocking.body.map { String(decoding: $0, as: UTF8.self) }, "blocking")
    }

    func testTheDefaultRunsTheBlockingExecuteOnOneOfTheSessionsTransferThreads() async throws {
        let engine = StubEngine { RawResponse(request: $0, statusCode: .ok) }
        let session = Session(engine: engine)
        XCTAssertEqual(session.asyncThreads.counts.threads, 0)
        let response = try await HTTPTransport(session: session).send(HTTPRequest(endpoint: url))
        XCTAssertEqual(response.httpStatus, .ok)
        XCTAssertEqual(session.asyncThreads.counts.threads, 1, "the exchange did not run on the session's transfer threads")
        // Called outside a session, it runs on the process's shared transfer threads.
        let direct = await engine.executeAsync(RawRequest(url: try XCTUnwrap(URL(string: url))), control: TransferControl())
        XCTAssertEqual(direct.statusCode, .ok)
        XCTAssertGreaterThan(TransferThreads.shared.counts.threads, 0)
        XCTAssertEqual(session.asyncThreads.counts.threads, 1)
    }
}
