import CCurl
import Foundation
@testable import HTTPTransport
import XCTest

/// The engine's fast path (`TransferOptions.Inputs`): a handle that made its options for a plain
/// request keeps them, unmade and uncompared, for the same request again. Whatever path a
/// transfer takes, the options its handle then holds must be exactly those a fresh handle gets
/// for that request (the plain path: `describe`, then `apply`).
final class TransferOptionsInputsTests: XCTestCase {

    private func engine() -> CurlEngine {
        var configuration = Session.Configuration()
        configuration.maxIdleHandles = 1
        return CurlEngine(security: .noEvaluation, configuration: configuration)
    }

    private func request(_ method: HTTPRequest.HTTPMethod = .get, _ path: String = "/a", headers: HTTPHeaders = HTTPHeaders(),
                         body: Data? = nil, timeout: TimeInterval = 30) throws -> RawRequest {
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:9" + path))
        return RawRequest(method: method, url: url, headers: headers, body: body.map(RawRequest.Body.data), timeout: timeout)
    }

    /// Prepares `request` on `engine`'s one handle and gives it back to the pool, returning the
    /// options the handle held and the inputs it remembered.
    private func prepared(_ request: RawRequest, control: TransferControl = TransferControl(),
                          on engine: CurlEngine) throws -> (TransferOptions, TransferOptions.Inputs?) {
        let transfer = try engine.prepare(request, control: control)
        defer { engine.finish(transfer, code: CURLE_OK) }
        return (transfer.handle.applied, transfer.handle.appliedInputs)
    }

    func testAHandleHoldsForEveryRequestTheOptionsAFreshHandleGets() throws {
        let reused = engine()
        let progress = TransferControl(progress: { _ in true })
        let sequence: [(RawRequest, TransferControl)] = try [
            (request(), TransferControl()), (request(), TransferControl()),
            (request(headers: ["X-Token": "1"]), TransferControl()), (request(headers: ["X-Token": "1"]), TransferControl()),
            (request(headers: ["X-Token": "2"]), TransferControl()), (request(), TransferControl()),
            (request(timeout: 5), TransferControl()), (request(timeout: 5), TransferControl()), (request(), TransferControl()),
            (request(.head), TransferControl()), (request(.delete), TransferControl()), (request(), TransferControl()),
            (request(.post, body: Data("x".utf8)), TransferControl()), (request(), TransferControl()),
            (request(.put), TransferControl()), (request(), TransferControl()),
            (request(headers: ["If-None-Match": "\"e\""]), TransferControl()), (request(), TransferControl()),
            (request(), progress), (request(), progress), (request(), TransferControl()),
            (request(.get, "/b"), TransferControl()), (request(.get, "/b"), TransferControl()), (request(), TransferControl()),
        ]
        for (index, (request, control)) in sequence.enumerated() {
            let (held, _) = try prepared(request, control: control, on: reused)
            let (fresh, _) = try prepared(request, control: control, on: engine())
            XCTAssertEqual(held, fresh, "step \(index): \(request.method) \(request.url) \(request.headers)")
        }
    }

    func testTheSamePlainRequestAgainKeepsTheHandlesOptionsUnmade() throws {
        let engine = engine()
        let (_, first) = try prepared(try request(), on: engine)
        let remembered = try XCTUnwrap(first, "a plain GET's inputs are remembered")
        let (_, second) = try prepared(try request(), on: engine)
        XCTAssertTrue(second === remembered, "the same request again took the fast path")
        let (_, other) = try prepared(try request(headers: ["X-Token": "1"]), on: engine)
        XCTAssertFalse(other === remembered, "other headers: the options were made again")
        let (_, withBody) = try prepared(try request(.post, body: Data("x".utf8)), on: engine)
        XCTAssertNil(withBody, "a request with a body is not plain")
    }

    func testACodedResponseChangesNoOptionSoTheSameRequestKeepsItsInputs() throws {
        let engine = engine()
        let request = try request()
        let transfer = try engine.prepare(request, control: TransferControl())
        let remembered = transfer.handle.appliedInputs
        XCTAssertNotNil(remembered)
        XCTAssertFalse(transfer.handle.applied.decodesContent, "the engine decodes bodies itself")
        // A response in a coding libcurl cannot decode passes as it came: no option changes.
        for line in ["HTTP/1.1 200 OK", "Content-Encoding: foo", ""] {
            Array((line + "\r\n").utf8).withUnsafeBytes { transfer.state.receiveHeaderLine($0) }
        }
        XCTAssertFalse(transfer.handle.applied.decodesContent)
        XCTAssertNotNil(transfer.handle.appliedInputs)
        engine.finish(transfer, code: CURLE_OK)
        let (held, _) = try prepared(request, on: engine)
        XCTAssertFalse(held.decodesContent)
    }

    func testAnotherRouteForTheSameRequestMakesTheOptionsAgain() throws {
        // (A session that reads the proxy from the environment reads it on every send.)
        let request = try request()
        let url = request.urlString
        let inputs = try XCTUnwrap(TransferOptions.Inputs(request, url: url, control: TransferControl(), proxy: ""))
        XCTAssertTrue(inputs.match(request, url: url, control: TransferControl(), proxy: ""))
        XCTAssertFalse(inputs.match(request, url: url, control: TransferControl(), proxy: "http://127.0.0.1:3128"))
        XCTAssertFalse(inputs.match(request, url: url, control: TransferControl(), proxy: nil))
    }
}
