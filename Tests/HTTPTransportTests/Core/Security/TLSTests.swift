import Foundation
import HTTPTransport
import Logging
import XCTest

/// TLS verification, pinning, client certificates and the reuse rules, against the local
/// server's TLS listeners and the private PKI that `make_certs.py` generates for this run:
///
/// | listener           | certificate                                              |
/// |--------------------|----------------------------------------------------------|
/// | `https`            | leaf for localhost/127.0.0.1, signed by the private CA   |
/// | `https_expired`    | same names and CA, validity ended yesterday              |
/// | `https_otherhost`  | CA-signed leaf for `other.example` only                  |
/// | `https_selfsigned` | self-signed leaf for localhost/127.0.0.1                 |
/// | `https_mtls`       | the `https` leaf; requires a client certificate from the CA |
///
/// Every rejected connection is also checked on the server's side: its request counter for
/// that listener must not move, i.e. the client closed the connection before a request byte.
final class TLSTests: XCTestCase, TLSFixtures {
    // MARK: CA and host-name verification

    func testSystemRootsAloneRejectThePrivateCA() throws {
        try assertRejected(Security.noEvaluation, listener: "https", as: .tlsFailure, containing: ["localhost"])
    }

    func testTrustedRootBundleAcceptsThePrivateCA() throws {
        let response = try sendOK(HTTPTransport(security: caSecurity()), request("https"))
        XCTAssertEqual(response.httpStatus, .ok)
        XCTAssertEqual(try echo(response)["listener"] as? String, "https")
    }

    func testTrustedRootBundleWorksForTheIPAddressToo() throws {
        let response = try sendOK(HTTPTransport(security: caSecurity()), request("https", host: "127.0.0.1"))
        XCTAssertEqual(response.httpStatus, .ok)
    }

    func testExpiredCertificateFails() throws {
        try assertRejected(caSecurity(), listener: "https_expired", as: .tlsFailure, containing: ["expired"])
    }

    func testCertificateForAnotherHostFails() throws {
        try assertRejected(caSecurity(), listener: "https_otherhost", as: .tlsFailure, containing: ["localhost"])
    }

    func testSelfSignedCertificateFailsEvenWithTheCABundle() throws {
        try assertRejected(Security.noEvaluation, listener: "https_selfsigned", as: .tlsFailure)
        try assertRejected(caSecurity(), listener: "https_selfsigned", as: .tlsFailure, containing: ["self-signed"])
    }

    func testUnreadableTrustedRootBundleFails() throws {
        let missing = certificate("does-not-exist.pem")
        try assertRejected(Security(trustedRootCertificates: missing), listener: "https", as: .tlsFailure)
    }

    // MARK: .disable

    func testDisableAcceptsSelfSignedAndExpiredOnlyForItsHost() throws {
        let logs = LogCapture(label: "HTTPTransport.Security")
        let security = Security(certificates: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: .disable)],
                                trustedRootCertificates: ca, logger: logs.logger)
        let transport = HTTPTransport(security: security)
        XCTAssertEqual(try sendOK(transport, request("https_selfsigned")).httpStatus, .ok)
        XCTAssertEqual(try sendOK(transport, request("https_expired")).httpStatus, .ok)
        XCTAssertEqual(try sendOK(transport, request("https_otherhost")).httpStatus, .ok)
        // The same servers under another name are still verified, in the same session.
        try assertRejected(transport, request("https_selfsigned", host: "127.0.0.1"), listener: "https_selfsigned",
                           as: .tlsFailure)
        try assertRejected(transport, request("https_expired", host: "127.0.0.1"), listener: "https_expired",
                           as: .tlsFailure)
        XCTAssertEqual(try sendOK(transport, request("https", host: "127.0.0.1")).httpStatus, .ok)

        let warnings = logs.records.filter { $0.level == .warning }
        XCTAssertEqual(warnings.count, 1, "warned once, the first time: \(warnings)")
        XCTAssertTrue(warnings.first?.message.contains("localhost") ?? false)
    }

    func testDisableDoesNotLeakIntoOtherSessions() throws {
        let disabled = HTTPTransport(security: Security(
            certificates: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: .disable)],
            logger: LogCapture(label: "HTTPTransport.Security").logger))
        XCTAssertEqual(try sendOK(disabled, request("https_selfsigned")).httpStatus, .ok)
        try assertRejected(caSecurity(), listener: "https_selfsigned", as: .tlsFailure)
    }

    func testDisableWithAPinTrustsExactlyThatCertificate() throws {
        let selfSigned = try fingerprints("selfsigned")
        let right = Security(certificates: [
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .disable),
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: selfSigned.sha256)),
        ], logger: LogCapture(label: "HTTPTransport.Security").logger)
        XCTAssertEqual(try sendOK(HTTPTransport(security: right), request("https_selfsigned")).httpStatus, .ok)

        let wrong = Security(certificates: [
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .disable),
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: try fingerprints("leaf").sha256)),
        ], logger: LogCapture(label: "HTTPTransport.Security").logger)
        try assertRejected(wrong, listener: "https_selfsigned", as: .pinningFailed, containing: [selfSigned.sha256])

        let wrongKey = Security(certificates: [
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .disable),
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .publicKey(fingerprint: try fingerprints("leaf").spkiBase64)),
        ], logger: LogCapture(label: "HTTPTransport.Security").logger)
        try assertRejected(wrongKey, listener: "https_selfsigned", as: .pinningFailed)
    }

    // MARK: Right pins

    func testRightPinsOfEveryKindAndSpellingAreAccepted() throws {
        let leaf = try fingerprints("leaf")
        let spellings: [(String, TrustPolicyManager.Certificate.Fingerprint)] = [
            ("sha1", .sha1(fingerprint: leaf.sha1)),
            ("sha1 lower-case with colons", .sha1(fingerprint: colonSeparated(leaf.sha1.lowercased()))),
            ("sha1 with spaces", .sha1(fingerprint: spaceSeparated(leaf.sha1))),
            ("sha256", .sha256(fingerprint: leaf.sha256)),
            ("sha256 with colons", .sha256(fingerprint: colonSeparated(leaf.sha256))),
            ("publicKey hex", .publicKey(fingerprint: leaf.spkiHex)),
            ("publicKey upper-case hex with colons", .publicKey(fingerprint: colonSeparated(leaf.spkiHex.uppercased()))),
            ("publicKey base64", .publicKey(fingerprint: leaf.spkiBase64)),
            ("publicKey sha256//base64", .publicKey(fingerprint: "sha256//" + leaf.spkiBase64)),
        ]
        for (name, fingerprint) in spellings {
            let security = caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: fingerprint)])
            switch HTTPTransport(security: security).send(request: request("https")) {
            case .success(let response): XCTAssertEqual(response.httpStatus, .ok, name)
            case .failure(let error): XCTFail("\(name): \(error)")
            }
        }
    }

    func testAnyOneOfSeveralPinsMatches() throws {
        let leaf = try fingerprints("leaf")
        let other = try fingerprints("otherhost")
        let combinations: [(String, [TrustPolicyManager.Certificate.Fingerprint])] = [
            ("two sha256", [.sha256(fingerprint: other.sha256), .sha256(fingerprint: leaf.sha256)]),
            ("two publicKey", [.publicKey(fingerprint: other.spkiBase64), .publicKey(fingerprint: leaf.spkiHex)]),
            ("wrong sha256, right publicKey", [.sha256(fingerprint: other.sha256), .publicKey(fingerprint: leaf.spkiBase64)]),
            ("right sha1, wrong publicKey", [.sha1(fingerprint: leaf.sha1), .publicKey(fingerprint: other.spkiBase64)]),
        ]
        for (name, pins) in combinations {
            let security = caSecurity(pins: pins.map { TrustPolicyManager.Certificate(host: "localhost", fingerprint: $0) })
            switch HTTPTransport(security: security).send(request: request("https")) {
            case .success(let response): XCTAssertEqual(response.httpStatus, .ok, name)
            case .failure(let error): XCTFail("\(name): \(error)")
            }
        }
    }

    func testPinsOfAParentDomainOrWildcardDoNotApplyToOtherNames() throws {
        // A wrong pin for "localhost" does not apply to 127.0.0.1, nor a wildcard to its parent.
        let wrong = try fingerprints("otherhost")
        let security = caSecurity(pins: [
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: wrong.sha256)),
            TrustPolicyManager.Certificate(host: "*.0.0.1", fingerprint: .sha256(fingerprint: wrong.sha256)),
        ])
        let transport = HTTPTransport(security: security)
        XCTAssertEqual(try sendOK(transport, request("https", host: "127.0.0.1")).httpStatus, .ok)
        try assertRejected(transport, request("https"), listener: "https", as: .pinningFailed)
        // Host names are case-insensitive.
        let upper = caSecurity(pins: [TrustPolicyManager.Certificate(host: "LOCALHOST", fingerprint: .sha256(fingerprint: wrong.sha256))])
        try assertRejected(upper, listener: "https", as: .pinningFailed)
    }

    // MARK: Wrong pins

    func testWrongPinsFailBeforeAnyRequestAndNameWhatWasPresented() throws {
        let leaf = try fingerprints("leaf")
        let wrong = try fingerprints("expired")
        let cases: [(String, TrustPolicyManager.Certificate.Fingerprint)] = [
            ("sha1", .sha1(fingerprint: wrong.sha1)),
            ("sha256", .sha256(fingerprint: wrong.sha256)),
            ("publicKey hex", .publicKey(fingerprint: wrong.spkiHex)),
            ("publicKey base64", .publicKey(fingerprint: wrong.spkiBase64)),
            ("publicKey sha256//base64", .publicKey(fingerprint: "sha256//" + wrong.spkiBase64)),
            ("sha1 of the self-signed twin", .sha1(fingerprint: try fingerprints("selfsigned").sha1)),
        ]
        for (name, fingerprint) in cases {
            let security = caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: fingerprint)])
            let error = try assertRejected(security, listener: "https", as: .pinningFailed,
                                           containing: ["localhost", leaf.sha1, leaf.sha256, "sha256//" + leaf.spkiBase64],
                                           name)
            XCTAssertEqual(error.url, request("https").endpoint, name)
        }
    }

    func testWrongPinOnAPOSTSendsNoBody() throws {
        let wrong = try fingerprints("expired")
        let security = caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: wrong.sha256))])
        let post = HTTPRequest(httpMethod: .post, endpoint: server.https("https") + "/post")
            .with(parameters: ["secret": "token"], encoding: .json)
        try assertRejected(HTTPTransport(security: security), post, listener: "https", as: .pinningFailed)
    }

    func testInvalidPinStringsFailClosed() throws {
        let cases: [(String, TrustPolicyManager.Certificate.Fingerprint)] = [
            ("sha1 not hex", .sha1(fingerprint: "not a fingerprint")),
            ("sha1 too short", .sha1(fingerprint: String(try fingerprints("leaf").sha1.dropLast()))),
            ("sha1 of sha256 length", .sha1(fingerprint: try fingerprints("leaf").sha256)),
            ("sha256 with a sign", .sha256(fingerprint: "+" + String(try fingerprints("leaf").sha256.dropFirst()))),
            ("sha256 empty", .sha256(fingerprint: "")),
            ("publicKey garbage", .publicKey(fingerprint: "sha256//not-base64!")),
            ("publicKey wrong length", .publicKey(fingerprint: "sha256//AAAA")),
        ]
        for (name, fingerprint) in cases {
            let security = caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: fingerprint)])
            try assertRejected(security, listener: "https", as: .pinningFailed, containing: ["localhost"], name)
        }
    }

    func testInvalidPinNextToAValidOneStillFailsClosed() throws {
        let security = caSecurity(pins: [
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: try fingerprints("leaf").sha256)),
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha1(fingerprint: "xyz")),
        ])
        try assertRejected(security, listener: "https", as: .pinningFailed)
    }

    // MARK: Pins do not turn verification off

    func testRightPinOfAnExpiredCertificateStillFails() throws {
        let expired = try fingerprints("expired")
        for fingerprint in [TrustPolicyManager.Certificate.Fingerprint.sha256(fingerprint: expired.sha256),
                            .sha1(fingerprint: expired.sha1), .publicKey(fingerprint: expired.spkiBase64)] {
            let security = caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: fingerprint)])
            try assertRejected(security, listener: "https_expired", as: .tlsFailure, containing: ["expired"], "\(fingerprint)")
        }
    }

    func testRightPinOfACertificateForAnotherHostStillFails() throws {
        let other = try fingerprints("otherhost")
        for fingerprint in [TrustPolicyManager.Certificate.Fingerprint.sha256(fingerprint: other.sha256),
                            .publicKey(fingerprint: other.spkiBase64)] {
            let security = caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: fingerprint)])
            try assertRejected(security, listener: "https_otherhost", as: .tlsFailure, "\(fingerprint)")
        }
    }

    func testRightPinOfASelfSignedCertificateStillFails() throws {
        let selfSigned = try fingerprints("selfsigned")
        let security = caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: selfSigned.sha256))])
        try assertRejected(security, listener: "https_selfsigned", as: .tlsFailure)
    }
}
