import Foundation
import HTTPTransport
import XCTest

/// One resource of the test server's `/cache/<key>` route (its caching headers come from the
/// query) and that key's request counter, with a key of its own for every test.
struct CachedResource {
    let key: String
    let server: TestServer
    /// The query of the resource (`cc=max-age%3D60&etag=1`), encoded.
    let query: String

    /// The resource with these query parameters, e.g. `["cc": "max-age=60", "etag": "1"]`
    /// (see Tests/Server/README.md).
    init(_ parameters: KeyValuePairs<String, String> = [:], key: String = UUID().uuidString, server: TestServer = .shared) {
        self.key = key
        self.server = server
        query = parameters.map { "\($0.key)=\(Self.encoded($0.value))" }.joined(separator: "&")
    }

    /// `value` encoded for a query (everything but letters and digits escaped).
    static func encoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
    }

    /// The resource's URL.
    var url: String { server.http + "/cache/\(key)" + (query.isEmpty ? "" : "?\(query)") }

    /// A GET of the resource.
    var request: HTTPRequest { HTTPRequest(endpoint: url) }

    /// What the server saw for this key: how many requests, and their conditional headers.
    func record() throws -> (count: Int, requests: [[String: Any]]) {
        let response = try HTTPTransport().send(request: HTTPRequest(endpoint: server.http + "/cache-count?key=\(key)")).get()
        let json = try XCTUnwrap(try response.getJSONDictionary())
        return (try XCTUnwrap(json["count"] as? Int), json["requests"] as? [[String: Any]] ?? [])
    }

    /// Requests the server answered for this key.
    func count() throws -> Int { try record().count }

    /// Makes the server's representation change (a new version, so a new ETag and Last-Modified).
    func bump() throws {
        _ = try HTTPTransport().send(request: HTTPRequest(endpoint: server.http + "/cache-bump?key=\(key)")).get()
    }
}

extension XCTestCase {
    /// A transport whose session has `cache` (and the given credential headers).
    func cachingTransport(_ cache: HTTPCache, credentialHeaders: [String]? = nil,
                          responseInterceptors: [any HTTPResponseInterceptor] = [ClarifyErrorInterceptor()],
                          useDefaultValidation: Bool = true) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.cache = cache
        if let credentialHeaders { configuration.credentialHeaders = credentialHeaders }
        return HTTPTransport(session: Session(configuration: configuration), responseInterceptors: responseInterceptors,
                             useDefaultValidation: useDefaultValidation)
    }

    /// The server's JSON body of a `/cache/<key>` response.
    func cacheBody(_ response: HTTPResponse) throws -> [String: Any] {
        try XCTUnwrap(try response.getJSONDictionary())
    }

    /// A new empty folder that is removed when the test ends.
    func temporaryCacheDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("httptransport-cache-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }

    /// The entry files of a cache directory: the files in its URL folders (not the salt, not
    /// temporary files).
    func cacheEntryFiles(in directory: URL) -> [URL] {
        let manager = FileManager.default
        let folders = (try? manager.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        return folders.filter { $0.lastPathComponent != ".tmp" && $0.hasDirectoryPath }.flatMap { folder in
            (try? manager.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        }
    }
}

extension XCTestCase {
    /// Sends `resource` through `transport`, then `second` (the resource again by default), and
    /// checks the second send's cache status and how many requests the server answered in all.
    func assertSecondSend(_ resource: CachedResource, then second: HTTPRequest? = nil, through transport: HTTPTransport,
                          is status: HTTPCacheStatus, serverRequests: Int,
                          file: StaticString = #filePath, line: UInt = #line) throws {
        _ = try sendOK(transport, resource.request, file: file, line: line)
        let response = try sendOK(transport, second ?? resource.request, file: file, line: line)
        XCTAssertEqual(response.metrics.cacheStatus, status, file: file, line: line)
        XCTAssertEqual(try resource.count(), serverRequests, file: file, line: line)
    }
}
