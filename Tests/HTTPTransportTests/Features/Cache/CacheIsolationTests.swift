import Foundation
@testable import HTTPTransport
import XCTest

/// What one `HTTPCache` keeps apart: sessions that reach a URL through different connections,
/// and the credentials in a URL's user info (which never reach the disk).
final class CacheIsolationTests: XCTestCase {
    /// A transport whose session shares `cache`, is configured by `configure`, and whose engine
    /// answers every request with `body` (cacheable for a minute), counting the requests.
    private func transport(_ cache: HTTPCache, security: Security = .noEvaluation, body: String,
                           configure: (inout Session.Configuration) -> Void = { _ in }) -> (HTTPTransport, Recorder<String>) {
        var configuration = Session.Configuration()
        configuration.cache = cache
        configure(&configuration)
        let seen = Recorder<String>()
        let engine = StubEngine { request in
            seen.add(request.url.absoluteString)
            return RawResponse(request: request, statusCode: .ok, headers: ["Cache-Control": "max-age=60"], data: Data(body.utf8))
        }
        return (HTTPTransport(session: Session(security: security, configuration: configuration, engine: engine)), seen)
    }

    private func body(_ transport: HTTPTransport, _ url: String) throws -> (String, HTTPCacheStatus) {
        let response = try transport.send(request: HTTPRequest(endpoint: url)).get()
        return (response.getString() ?? "", response.metrics.cacheStatus)
    }

    // MARK: Connection identity

    func testSessionsWithTheSameConnectionShareStoredResponses() throws {
        let cache = HTTPCache()
        let (first, _) = transport(cache, body: "first") { $0.resolveOverrides = ["api.test:80": "10.0.0.7"] }
        let (second, seen) = transport(cache, body: "second") { $0.resolveOverrides = ["api.test:80": "10.0.0.7"] }
        _ = try body(first, "http://api.test/config")
        XCTAssertEqual(try body(second, "http://api.test/config").1, .hit)
        XCTAssertEqual(seen.values.count, 0)
    }

    func testASessionThatConnectsDifferentlyIsNotServedAnotherSessionsResponse() throws {
        let file = URL(fileURLWithPath: "/etc/ssl/certs/ca-certificates.crt")
        let key = URL(fileURLWithPath: "/tmp/tenant.key")
        let variants: [(String, Security, (inout Session.Configuration) -> Void)] = [
            ("unix socket", .noEvaluation, { $0.unixSocketPath = "/var/run/other.sock" }),
            ("resolve override", .noEvaluation, { $0.resolveOverrides = ["api.test:80": "10.0.0.8"] }),
            ("proxy", .noEvaluation, { $0.proxy = Proxy("http://proxy.test:3128") }),
            ("proxy user", .noEvaluation, { $0.proxy = Proxy("http://proxy.test:3128", username: "tenant-b", password: "p") }),
            ("client certificate", Security(clientCertificate: .pem(certificate: file, key: key)), { _ in }),
            ("trust roots", Security(trustedRootCertificates: file), { _ in }),
            ("pins", Security(certificates: [.init(host: "api.test", fingerprint: .disable)]), { _ in }),
            ("address policy", .noEvaluation, { $0.addressPolicy = .publicOnly }),
        ]
        for (name, security, configure) in variants {
            let cache = HTTPCache()
            let (tenantA, _) = transport(cache, body: "A") { $0.proxy = Proxy("http://proxy.test:3128", username: "tenant-a", password: "p") }
            let (plain, _) = transport(cache, body: "plain")
            let (tenantB, seen) = transport(cache, security: security, body: "B", configure: configure)
            _ = try body(tenantA, "http://api.test/private")
            _ = try body(plain, "http://api.test/private")
            let (answer, status) = try body(tenantB, "http://api.test/private")
            XCTAssertEqual(answer, "B", name)
            XCTAssertEqual(status, .miss, name)
            XCTAssertEqual(seen.values.count, 1, name)
        }
    }

    func testTheConnectionIdentityNamesEveryConnectionSetting() {
        let base = CacheKey.connectionIdentity(security: .noEvaluation, configuration: Session.Configuration())
        XCTAssertEqual(base, CacheKey.connectionIdentity(security: .noEvaluation, configuration: Session.Configuration()))
        var direct = Session.Configuration()
        direct.proxy = .direct
        XCTAssertNotEqual(base, CacheKey.connectionIdentity(security: .noEvaluation, configuration: direct))
        var pinned = [TrustPolicyManager.Certificate(host: "api.test", fingerprint: .sha256(fingerprint: "ab"))]
        let one = CacheKey.connectionIdentity(security: Security(certificates: pinned), configuration: direct)
        pinned[0] = .init(host: "api.test", fingerprint: .sha256(fingerprint: "cd"))
        XCTAssertNotEqual(one, CacheKey.connectionIdentity(security: Security(certificates: pinned), configuration: direct))
        var custom = Session.Configuration()
        custom.addressPolicy = .custom { _ in true }
        XCTAssertNotEqual(CacheKey.connectionIdentity(security: .noEvaluation, configuration: custom),
                          CacheKey.connectionIdentity(security: .noEvaluation, configuration: custom),
                          "a custom policy cannot be compared: it shares with no other session")
    }

    // MARK: User info

    func testUserInfoInTheURLIsACredentialAndNeverWrittenToDisk() throws {
        let directory = try temporaryCacheDirectory()
        let cache = HTTPCache(directory: directory)
        let (alice, _) = transport(cache, body: "first user's")
        let (bob, seen) = transport(cache, body: "bob's")
        _ = try body(alice, "http://alice:s3cr3t-pw@api.test/me")
        XCTAssertEqual(try body(alice, "http://alice:s3cr3t-pw@api.test/me").1, .hit)
        XCTAssertEqual(try body(bob, "http://bob:other-pw@api.test/me").0, "bob's")
        XCTAssertEqual(try body(bob, "http://api.test/me").0, "bob's")
        XCTAssertEqual(seen.values.count, 2)

        let files = cacheEntryFiles(in: directory)
        XCTAssertEqual(files.count, 3)
        for file in files {
            let contents = try Data(contentsOf: file)
            XCTAssertNil(contents.range(of: Data("s3cr3t-pw".utf8)), file.path)
            XCTAssertNil(contents.range(of: Data("alice".utf8)), file.path)
            XCTAssertNil(contents.range(of: Data("api.test/me".utf8)), "files name the URL by its digest: \(file.path)")
        }
    }

    func testFolderNamesAreSaltedDigestsOfTheURL() throws {
        let directory = try temporaryCacheDirectory()
        let (transport, _) = transport(HTTPCache(directory: directory), body: "x")
        _ = try body(transport, "http://api.test/guessable")
        let folders = Set(cacheEntryFiles(in: directory).map { $0.deletingLastPathComponent().lastPathComponent })
        XCTAssertEqual(folders.count, 1)
        XCTAssertFalse(folders.contains(SHA256Digest.hex(of: Array("http://api.test/guessable".utf8))))
    }

    func testTheKeyURLDropsUserInfoAndFragmentOnly() throws {
        let parts = CacheKey.parts(try XCTUnwrap(URL(string: "https://u%40x:p@host.test:8443/a@b?q=@#frag")))
        XCTAssertEqual(parts.url, "https://host.test:8443/a@b?q=@")
        XCTAssertEqual(parts.userInfo, "u%40x:p")
        XCTAssertNil(CacheKey.parts(try XCTUnwrap(URL(string: "http://host.test/?to=a@b"))).userInfo)
    }
}
