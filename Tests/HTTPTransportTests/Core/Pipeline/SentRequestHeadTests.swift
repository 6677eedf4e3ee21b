import CCurl
import Foundation
@testable import HTTPTransport
import XCTest

/// A recording's request headers are those libcurl sent (its own `Host`, `User-Agent`,
/// `Accept-Encoding` included), secrets still hidden; only a pipeline with a recorder pays for
/// libcurl's verbose mode, which shows them.
final class SentRequestHeadTests: XCTestCase {
    func test_aRecordedGETsRequestHeadersAreTheOnesTheServerReceived() throws {
        let recorder = HTTPArchiveRecorder()
        let transport = HTTPTransport(responseInterceptors: [recorder])
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything"))
        let received = try XCTUnwrap(try echo(response)["headers"] as? [[String]])

        let entry = try XCTUnwrap(archiveEntries(recorder).first)
        for name in ["Host", "User-Agent", "Accept-Encoding"] {
            let sent = try XCTUnwrap(received.first { $0.first?.lowercased() == name.lowercased() }?.last, name)
            XCTAssertEqual(entry.request.header(name), sent, name)
        }
        XCTAssertEqual(entry.request.headers.map { $0.name.lowercased() }, received.compactMap { $0.first?.lowercased() })
    }

    func test_aRequestsOwnRecorderRecordsTheContentLengthOfAPOSTAsSent() throws {
        let recorder = HTTPArchiveRecorder()
        let request = HTTPRequest(httpMethod: .post, endpoint: server.http + "/anything", responseInterceptors: [recorder])
            .with(parameters: ["note": "hello"], encoding: .form)
        let received = try XCTUnwrap(try echo(try sendOK(HTTPTransport(), request))["headers"] as? [[String]])

        let entry = try XCTUnwrap(archiveEntries(recorder).first)
        let sent = received.first { $0.first?.lowercased() == "content-length" }?.last
        XCTAssertNotNil(sent)
        XCTAssertEqual(entry.request.header("Content-Length"), sent)
        XCTAssertEqual(entry.request.header("Host"), received.first { $0.first?.lowercased() == "host" }?.last)
    }

    func test_anAuthorizationHeaderSetByAnInterceptorIsRecordedRedacted() throws {
        let recorder = HTTPArchiveRecorder()
        let transport = HTTPTransport(requestInterceptors: [SetHeaderInterceptor(name: "Authorization", value: "Bearer secret")],
                                      responseInterceptors: [recorder])
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything"))

        let entry = try XCTUnwrap(archiveEntries(recorder).first)
        XCTAssertEqual(entry.request.header("Authorization"), "<redacted>")
        XCTAssertNotNil(entry.request.header("Host"), "the head as sent was recorded")
        XCTAssertFalse(entry.request.headers.contains { $0.value.contains("secret") })
    }

    func test_aFailedExchangeIsStillRecordedWithTheRequestsOwnHeaders() throws {
        let recorder = HTTPArchiveRecorder()
        let transport = HTTPTransport(responseInterceptors: [recorder])
        let request = HTTPRequest(endpoint: "http://127.0.0.1:\(TestServer.closedPort())/nothing", timeout: 5)
            .adding(header: "X-Trace", value: "1")
        XCTAssertEqual(transport.send(request: request).error?.code, .cannotConnect)

        let entry = try XCTUnwrap(archiveEntries(recorder).first)
        XCTAssertEqual(entry.response.status, 0)
        XCTAssertEqual(entry.request.header("X-Trace"), "1")
    }

    func test_aTransportWithoutARecorderLeavesVerboseOff() throws {
        let transport = HTTPTransport()
        XCTAssertFalse(transport.pipeline.keepsSentHead)
        XCTAssertTrue(HTTPTransport(responseInterceptors: [HTTPArchiveRecorder()]).pipeline.keepsSentHead)
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything"))
        XCTAssertFalse(response.raw.request.keepsSentHead)
    }

    func test_aHandleUsedForARecordedRequestThenAPlainOneLeavesVerboseOff() throws {
        var configuration = Session.Configuration()
        configuration.maxIdleHandles = 1
        let engine = CurlEngine(security: .noEvaluation, configuration: configuration)
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:9/a"))
        var recorded = RawRequest(url: url)
        recorded.keepsSentHead = true
        for (request, verbose) in [(recorded, true), (RawRequest(url: url), false), (recorded, true), (recorded, true),
                                   (RawRequest(url: url), false)] {
            let transfer = try engine.prepare(request, control: TransferControl())
            XCTAssertEqual(transfer.handle.applied.keepsSentHead, verbose)
            engine.finish(transfer, code: CURLE_OK)
        }
    }
}
