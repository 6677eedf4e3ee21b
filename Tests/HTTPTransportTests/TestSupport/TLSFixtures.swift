import Foundation
import HTTPTransport
import XCTest

/// The private PKI of the test run (see Tests/Server/make_certs.py) and checks shared by the TLS
/// tests: trusted roots, requests to a listener, the presented fingerprints, and "rejected
/// before a request byte" (the listener's request counter did not move).
protocol TLSFixtures: XCTestCase {}

enum TLSTestError: Error { case unexpectedSuccess }

struct Fingerprints {
    let sha1: String
    let sha256: String
    let spkiHex: String
    let spkiBase64: String
}

extension TLSFixtures {

    var ca: URL { certificate("ca.pem") }

    func certificate(_ name: String) -> URL { server.certificates.appendingPathComponent(name) }

    func caSecurity(pins: [TrustPolicyManager.Certificate] = []) -> Security {
        Security(certificates: pins, trustedRootCertificates: ca)
    }

    func request(_ listener: String, host: String = "localhost", path: String = "/get") -> HTTPRequest {
        HTTPRequest(endpoint: server.https(listener, host: host) + path, timeout: 15)
    }

    func rightPins() throws -> [TrustPolicyManager.Certificate.Fingerprint] {
        let leaf = try fingerprints("leaf")
        return [.sha1(fingerprint: leaf.sha1), .sha256(fingerprint: leaf.sha256), .publicKey(fingerprint: leaf.spkiBase64)]
    }

    /// What `make_certs.py` computed for a server certificate (upper-case hex for the
    /// certificate digests, lower-case hex and base64 for the public key).
    func fingerprints(_ name: String) throws -> Fingerprints {
        let data = try Data(contentsOf: certificate("fingerprints.json"))
        let all = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: [String: String]])
        let entry = try XCTUnwrap(all[name])
        return Fingerprints(sha1: try XCTUnwrap(entry["sha1"]), sha256: try XCTUnwrap(entry["sha256"]),
                            spkiHex: try XCTUnwrap(entry["spki_sha256_hex"]),
                            spkiBase64: try XCTUnwrap(entry["spki_sha256_base64"]))
    }

    func colonSeparated(_ hex: String) -> String { grouped(hex, separator: ":") }
    func spaceSeparated(_ hex: String) -> String { grouped(hex, separator: " ") }
    func grouped(_ hex: String, separator: String) -> String {
        var parts: [String] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
            parts.append(String(hex[index..<next]))
            index = next
        }
        return parts.joined(separator: separator)
    }

    /// The server's per-listener request counters.
    func counts() throws -> [String: Int] {
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/_admin/counts"))
        let data = try XCTUnwrap(response.body)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Int])
    }

    @discardableResult
    func assertRejected(_ security: Security, listener: String, as code: HTTPTransportError.Code,
                        containing expected: [String] = [], _ name: String = "",
                        file: StaticString = #filePath, line: UInt = #line) throws -> HTTPTransportError {
        try assertRejected(HTTPTransport(security: security), request(listener), listener: listener, as: code,
                           containing: expected, name, file: file, line: line)
    }

    /// Sends, expects the failure `code` with the `expected` texts in its message, and checks
    /// that the listener received no request.
    @discardableResult
    func assertRejected(_ transport: HTTPTransport, _ request: HTTPRequest, listener: String,
                        as code: HTTPTransportError.Code, containing expected: [String] = [], _ name: String = "",
                        file: StaticString = #filePath, line: UInt = #line) throws -> HTTPTransportError {
        let before = try counts()
        let result = transport.send(request: request)
        let after = try counts()
        XCTAssertEqual(after[listener, default: -1] - before[listener, default: -1], 0,
                       "\(name): the \(listener) listener received a request", file: file, line: line)
        guard case .failure(let error) = result else {
            XCTFail("\(name): expected \(code), got a response", file: file, line: line)
            throw TLSTestError.unexpectedSuccess
        }
        XCTAssertEqual(error.code, code, "\(name): \(error)", file: file, line: line)
        for text in expected {
            XCTAssertTrue(error.message.contains(text), "\(name): '\(text)' missing in: \(error.message)", file: file, line: line)
        }
        return error
    }
}
