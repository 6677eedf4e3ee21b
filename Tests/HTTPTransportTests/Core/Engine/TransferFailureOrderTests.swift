import Foundation
@testable import HTTPTransport
import XCTest

/// `CurlErrorMapping.failure(of:…)` picks one error for a failed transfer: what the transfer
/// recorded, else what the session's connection options explain, else libcurl's code alone.
/// The transfer here is one the address policy stopped (loopback under `.publicOnly`), which
/// libcurl knows only as a connection it could not make.
final class TransferFailureOrderTests: XCTestCase {
    /// The chosen error and libcurl's own reading of the same transfer, after `record` ran on
    /// the transfer's state.
    private func failure(recording record: (TransferState) -> Void = { _ in })
        throws -> (chosen: HTTPTransportError, libcurlAlone: HTTPTransportError) {
        var configuration = Session.Configuration()
        configuration.addressPolicy = .publicOnly
        let engine = CurlEngine(security: .noEvaluation, configuration: configuration)
        let request = try HTTPRequest(endpoint: server.http + "/get").resolve()
        let transfer = try engine.prepare(request, control: TransferControl())
        let code = CancellableTransfer().perform(transfer, request: request, engine: engine)
        record(transfer.state)
        let chosen = CurlErrorMapping.failure(of: transfer, code: code, request: request,
                                              connectionOptions: engine.connectionOptions)
        let alone = CurlErrorMapping.error(for: code, message: transfer.handle.errorMessage, url: transfer.url,
                                           host: request.url.host ?? "", pinCheck: nil)
        return (chosen, alone)
    }

    func testTheConnectionOptionsExplainAFailureBeforeLibcurlsCodeAlone() throws {
        let (chosen, alone) = try failure()
        XCTAssertEqual(alone.code, .cannotConnect)
        XCTAssertEqual(chosen.code, .addressNotAllowed, "\(chosen)")
    }

    func testWhatTheTransferRecordedComesBeforeEverything() throws {
        let recorded = HTTPTransportError(code: .cancelled, message: "recorded by the transfer", url: "http://example.invalid/")
        let (chosen, _) = try failure(recording: { $0.storedError = recorded })
        XCTAssertEqual(chosen.code, .cancelled)
        XCTAssertEqual(chosen.message, "recorded by the transfer")
    }
}
