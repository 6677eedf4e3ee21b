import Foundation
import HTTPTransport
import XCTest

/// What the redirect-hop, handle-reuse and injection tests share: the server's second origin,
/// redirect URLs, the private CA, the listeners' request counters and a thread-safe recorder.
extension XCTestCase {
    /// The plain listener under another host name (`localhost` instead of `127.0.0.1`): another
    /// origin on the same server.
    var otherOrigin: String { "http://localhost:\(server.ports["http"] ?? 0)" }

    /// A URL on `origin` that redirects (`status`) to `target`, through the server's `/redirect-to`.
    func redirect(from origin: String, to target: String, status: Int = 302) -> String {
        "\(origin)/redirect-to?url=\(queryEncoded(target))&status_code=\(status)"
    }

    /// `text` escaped for a query value (everything but letters and digits).
    func queryEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// The header fields the server's echo route received, by lower-case name.
    func receivedHeaders(_ response: HTTPResponse) throws -> [String: String] {
        try XCTUnwrap(try echo(response)["headers_dict"] as? [String: String])
    }

    /// The private CA that signed the TLS listeners' certificates.
    var certificateAuthority: URL { server.certificates.appendingPathComponent("ca.pem") }

    /// A TLS policy trusting the private CA (only), with `pins`.
    func trustingTestCA(pins: [TrustPolicyManager.Certificate] = []) -> Security {
        Security(certificates: pins, trustedRootCertificates: certificateAuthority)
    }

    /// One of `make_certs.py`'s fingerprints of a server certificate (`"leaf"`, `"otherhost"`, …):
    /// `sha256` (hex of the DER) or `spki_sha256_base64` (the public key).
    func certificateFingerprint(_ certificate: String, _ kind: String) throws -> String {
        let data = try Data(contentsOf: server.certificates.appendingPathComponent("fingerprints.json"))
        let all = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: [String: String]])
        return try XCTUnwrap(all[certificate]?[kind], "\(certificate) \(kind)")
    }

    /// The request counters of every listener (admin routes are not counted).
    func listenerRequestCounts() throws -> [String: Int] {
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/_admin/counts"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: XCTUnwrap(response.body)) as? [String: Int])
    }

    /// Sets every listener's request counter to 0.
    func resetListenerRequestCounts() throws {
        _ = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/_admin/reset-all"))
    }
}

/// A request interceptor that sets `name: value` on every request (every hop, every attempt),
/// as a token interceptor does.
struct SetHeaderInterceptor: HTTPRequestInterceptor {
    let name: String
    let value: String

    func intercept(request: RawRequest) throws -> RawRequest {
        var request = request
        request.setValue(value, forHTTPHeaderField: name)
        return request
    }
}
