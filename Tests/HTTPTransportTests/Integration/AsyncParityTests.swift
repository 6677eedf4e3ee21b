import Foundation
import HTTPTransport
import XCTest

/// An async send (on the session's transfer loop) does what a blocking send does: redirects
/// and their hop rules, retries with back-off, the cache, downloads to files, the size cap.
final class AsyncParityTests: XCTestCase {
    private func result(_ transport: HTTPTransport, _ request: HTTPRequest) async -> HTTPTransport.Result {
        do throws(HTTPTransportError) {
            return .success(response: try await transport.send(request))
        } catch {
            return .failure(error: error)
        }
    }

    func testARedirectToAnotherOriginIsFollowedWithoutTheCredentials() async throws {
        let target = "http://localhost:\(server.ports["http"] ?? 0)/anything/landed"
        let query = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let request = HTTPRequest(endpoint: server.http + "/redirect-to?url=\(query)")
            .with(header: "Authorization", value: "Bearer secret")
        let blocking = try XCTUnwrap(HTTPTransport().send(request: request).value)
        let awaited = try await HTTPTransport().send(request)
        for response in [blocking, awaited] {
            let echo = try XCTUnwrap(response.getJSONDictionary())
            XCTAssertEqual(echo["path"] as? String, "/anything/landed")
            XCTAssertNil((echo["headers_dict"] as? [String: Any])?["Authorization"], "credentials crossed origins")
            XCTAssertEqual(response.metrics.redirectCount, 1)
        }
    }

    func testAFailingRequestIsRetriedAfterItsBackOff() async throws {
        let key = UUID().uuidString
        let transport = HTTPTransport(retrier: RetryPolicy(maxAttempts: 3, baseDelay: 0.05))
        let response = try await transport.send(HTTPRequest(endpoint: server.http + "/flaky?key=\(key)&fail=2"))
        XCTAssertEqual(response.httpStatus.rawValue, 200)
        let count = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/flaky/count?key=\(key)"))
        XCTAssertEqual(try XCTUnwrap(count.getJSONDictionary())["count"] as? Int, 3)
    }

    func testAFreshCachedResponseIsServedWithoutTheNetwork() async throws {
        let key = UUID().uuidString
        var configuration = Session.Configuration()
        configuration.cache = HTTPCache()
        let transport = HTTPTransport(session: Session(configuration: configuration))
        let url = server.http + "/cache/\(key)?cc=max-age%3D60"
        let first = try await transport.send(HTTPRequest(endpoint: url))
        let second = try await transport.send(HTTPRequest(endpoint: url))
        XCTAssertEqual(first.metrics.cacheStatus, .miss)
        XCTAssertEqual(second.metrics.cacheStatus, .hit)
        XCTAssertEqual(second.body, first.body)
        let count = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/cache-count?key=\(key)"))
        XCTAssertEqual(try XCTUnwrap(count.getJSONDictionary())["count"] as? Int, 1)
    }

    func testADownloadIsWrittenToItsFile() async throws {
        let destination = try temporaryDirectory("async-download").appendingPathComponent("body.bin")
        let response = try await HTTPTransport().send(HTTPRequest(endpoint: server.http + "/bytes/300000").downloading(to: destination))
        XCTAssertEqual(response.fileURL, destination)
        XCTAssertEqual(try Data(contentsOf: destination).count, 300_000)
    }

    func testTheSizeCapStopsABodyTooLarge() async {
        var configuration = Session.Configuration()
        configuration.maxResponseSize = 100_000
        let transport = HTTPTransport(session: Session(configuration: configuration))
        let failed = await result(transport, HTTPRequest(endpoint: server.http + "/bytes/5000000"))
        XCTAssertEqual(failed.error?.code, .responseTooLarge)
    }
}
