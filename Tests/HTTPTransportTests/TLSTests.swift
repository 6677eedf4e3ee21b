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
final class TLSTests: XCTestCase {
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

    // MARK: .debug

    func testDebugLogsThePresentedFingerprintsAndAccepts() throws {
        let leaf = try fingerprints("leaf")
        let logs = LogCapture(label: "HTTPTransport.Security")
        let security = Security(certificates: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: .debug)],
                                trustedRootCertificates: ca, logger: logs.logger)
        let transport = HTTPTransport(security: security)
        XCTAssertEqual(try sendOK(transport, request("https")).httpStatus, .ok)

        let records = logs.records
        XCTAssertEqual(records.count, 1, "one record for the one handshake: \(records)")
        let record = try XCTUnwrap(records.first)
        for expected in ["localhost", leaf.sha1, leaf.sha256, leaf.spkiHex.uppercased(), leaf.spkiBase64] {
            XCTAssertTrue(record.message.contains(expected), "\(expected) missing in \(record.message)")
        }
        XCTAssertEqual(record.metadata["host"], "localhost")
        XCTAssertEqual(record.metadata["sha1"], leaf.sha1)
        XCTAssertEqual(record.metadata["sha256"], leaf.sha256)
        XCTAssertEqual(record.metadata["publicKeySHA256"], leaf.spkiHex.uppercased())
        XCTAssertEqual(record.metadata["publicKeySHA256Base64"], leaf.spkiBase64)
        XCTAssertNotNil(record.metadata["sha1Base64"])
        XCTAssertNotNil(record.metadata["sha256Base64"])
    }

    func testDebugAcceptsDespiteWrongPinsButNotDespiteCAVerification() throws {
        let wrong = try fingerprints("expired")
        let logs = LogCapture(label: "HTTPTransport.Security")
        let security = Security(certificates: [
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .debug),
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: wrong.sha256)),
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .publicKey(fingerprint: wrong.spkiBase64)),
        ], trustedRootCertificates: ca, logger: logs.logger)
        let transport = HTTPTransport(security: security)
        XCTAssertEqual(try sendOK(transport, request("https")).httpStatus, .ok)

        // CA verification still applies: the self-signed server is logged, then rejected.
        try assertRejected(transport, request("https_selfsigned"), listener: "https_selfsigned", as: .tlsFailure)
        let selfSigned = try fingerprints("selfsigned")
        XCTAssertTrue(logs.records.contains { $0.message.contains(selfSigned.sha256) }, "\(logs.records)")
    }

    func testDebugLogsOnEveryNewConnection() throws {
        let logs = LogCapture(label: "HTTPTransport.Security")
        let security = Security(certificates: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: .debug)],
                                trustedRootCertificates: ca, logger: logs.logger)
        let first = try sendOK(HTTPTransport(security: security), request("https"))
        let second = try sendOK(HTTPTransport(security: security), request("https"))
        XCTAssertFalse(first.metrics.connectionReused)
        XCTAssertFalse(second.metrics.connectionReused)
        XCTAssertEqual(logs.records.count, 2)
    }

    func testDebugRunsOnEveryHandshakeBecauseNothingIsResumed() throws {
        let logs = LogCapture(label: "HTTPTransport.Security")
        let security = Security(certificates: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: .debug)],
                                trustedRootCertificates: ca, logger: logs.logger)
        let transport = HTTPTransport(security: security)
        for _ in 0..<3 {
            // The server closes each connection: every send needs a new handshake, which a
            // resumed TLS session would get through without the pin callback.
            let response = try sendOK(transport, request("https").with(header: "Connection", value: "close"))
            XCTAssertFalse(response.metrics.connectionReused)
        }
        XCTAssertEqual(logs.records.count, 3, "\(logs.records)")
    }

    // MARK: No bypass through reuse or TLS resumption

    func testPinnedSessionReusesItsOwnCheckedConnection() throws {
        for fingerprint in try rightPins() {
            let transport = HTTPTransport(security: caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: fingerprint)]))
            let first = try sendOK(transport, request("https", path: "/connection-id"))
            let second = try sendOK(transport, request("https", path: "/connection-id"))
            XCTAssertTrue(second.metrics.connectionReused, "\(fingerprint)")
            XCTAssertEqual(try echo(first)["connection_id"] as? Int, try echo(second)["connection_id"] as? Int, "\(fingerprint)")
        }
    }

    func testWrongPinFailsRightAfterARightPinTalkedToTheSameHost() throws {
        let wrong = try fingerprints("expired")
        let wrongPins: [TrustPolicyManager.Certificate.Fingerprint] = [
            .sha1(fingerprint: wrong.sha1), .sha256(fingerprint: wrong.sha256), .publicKey(fingerprint: wrong.spkiBase64),
        ]
        for (right, wrong) in zip(try rightPins(), wrongPins) {
            let good = HTTPTransport(security: caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: right)]))
            XCTAssertEqual(try sendOK(good, request("https")).httpStatus, .ok)
            XCTAssertEqual(try sendOK(good, request("https")).httpStatus, .ok)
            try assertRejected(caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: wrong)]),
                               listener: "https", as: .pinningFailed, "\(right) then \(wrong)")
            // The good session is unaffected.
            XCTAssertEqual(try sendOK(good, request("https")).httpStatus, .ok)
        }
    }

    func testPinnedSessionNeverReusesAnUnpinnedConnection() throws {
        let wrong = try fingerprints("expired")
        let unpinned = HTTPTransport(security: caSecurity())
        XCTAssertEqual(try sendOK(unpinned, request("https")).httpStatus, .ok)
        for fingerprint in [TrustPolicyManager.Certificate.Fingerprint.sha256(fingerprint: wrong.sha256),
                            .publicKey(fingerprint: wrong.spkiBase64)] {
            try assertRejected(caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: fingerprint)]),
                               listener: "https", as: .pinningFailed)
        }
        // An unpinned session never reuses a `.disable` one's connection either.
        let disabled = HTTPTransport(security: Security(
            certificates: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: .disable)],
            logger: LogCapture(label: "HTTPTransport.Security").logger))
        XCTAssertEqual(try sendOK(disabled, request("https")).httpStatus, .ok)
        try assertRejected(Security.noEvaluation, listener: "https", as: .tlsFailure)
    }

    func testSharedPinnedTransportAcrossThreads() throws {
        let leaf = try fingerprints("leaf")
        let wrong = try fingerprints("expired")
        let good = HTTPTransport(security: caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: leaf.sha256))]))
        let bad = HTTPTransport(security: caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: wrong.sha256))]))
        let before = try counts()
        let outcomes = TLSOutcomes()
        let pinned = request("https")
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for _ in 0..<10 {
                let transport = thread % 2 == 0 ? good : bad
                switch transport.send(request: pinned) {
                case .success: outcomes.add(thread % 2 == 0 ? "good ok" : "bad ok")
                case .failure(let error): outcomes.add(thread % 2 == 0 ? "good \(error.code)" : "bad \(error.code)")
                }
            }
        }
        XCTAssertEqual(outcomes.count("good ok"), 20, "\(outcomes.all)")
        XCTAssertEqual(outcomes.count("bad pinningFailed"), 20, "\(outcomes.all)")
        XCTAssertEqual(try counts()["https", default: 0] - before["https", default: 0], 20)
    }

    // MARK: Client certificates (mutual TLS)

    func testServerRequiringAClientCertificateRejectsNone() throws {
        try assertRejected(caSecurity(), listener: "https_mtls", as: .tlsFailure)
    }

    func testClientCertificateInEveryFormIsAccepted() throws {
        let forms: [(String, ClientCertificate)] = [
            ("PEM", .pem(certificate: certificate("client.pem"), key: certificate("client.key"))),
            ("encrypted PEM", .pem(certificate: certificate("client.pem"), key: certificate("client-encrypted.key"), password: "secret")),
            ("PKCS#12", .pkcs12(certificate("client.p12"), password: "secret")),
        ]
        for (name, client) in forms {
            let transport = HTTPTransport(security: Security(trustedRootCertificates: ca, clientCertificate: client))
            switch transport.send(request: request("https_mtls")) {
            case .success(let response):
                XCTAssertEqual(response.httpStatus, .ok, name)
                let subject = try echo(response)["client_cert_subject"] as? String
                XCTAssertTrue(subject?.contains("CN=HTTPTransport Test Client") ?? false, "\(name): \(subject ?? "nil")")
            case .failure(let error):
                XCTFail("\(name): \(error)")
            }
        }
    }

    func testClientCertificateWithWrongPasswordFails() throws {
        let forms: [(String, ClientCertificate)] = [
            ("encrypted PEM", .pem(certificate: certificate("client.pem"), key: certificate("client-encrypted.key"), password: "wrong")),
            ("PKCS#12", .pkcs12(certificate("client.p12"), password: "wrong")),
            ("missing file", .pem(certificate: certificate("nope.pem"), key: certificate("nope.key"))),
        ]
        for (name, client) in forms {
            try assertRejected(Security(trustedRootCertificates: ca, clientCertificate: client), listener: "https_mtls",
                               as: .tlsFailure, name)
        }
    }

    func testClientCertificateTogetherWithAPin() throws {
        let leaf = try fingerprints("leaf")
        let client = ClientCertificate.pem(certificate: certificate("client.pem"), key: certificate("client.key"))
        let right = Security(certificates: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: leaf.sha256))],
                             trustedRootCertificates: ca, clientCertificate: client)
        XCTAssertEqual(try sendOK(HTTPTransport(security: right), request("https_mtls")).httpStatus, .ok)
        let wrong = Security(certificates: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: try fingerprints("expired").sha256))],
                             trustedRootCertificates: ca, clientCertificate: client)
        try assertRejected(wrong, listener: "https_mtls", as: .pinningFailed)
    }

    // MARK: Helpers

    private var ca: URL { certificate("ca.pem") }

    private func certificate(_ name: String) -> URL { server.certificates.appendingPathComponent(name) }

    private func caSecurity(pins: [TrustPolicyManager.Certificate] = []) -> Security {
        Security(certificates: pins, trustedRootCertificates: ca)
    }

    private func request(_ listener: String, host: String = "localhost", path: String = "/get") -> HTTPRequest {
        HTTPRequest(endpoint: server.https(listener, host: host) + path, timeout: 15)
    }

    private func rightPins() throws -> [TrustPolicyManager.Certificate.Fingerprint] {
        let leaf = try fingerprints("leaf")
        return [.sha1(fingerprint: leaf.sha1), .sha256(fingerprint: leaf.sha256), .publicKey(fingerprint: leaf.spkiBase64)]
    }

    struct Fingerprints {
        let sha1: String
        let sha256: String
        let spkiHex: String
        let spkiBase64: String
    }

    /// What `make_certs.py` computed for a server certificate (upper-case hex for the
    /// certificate digests, lower-case hex and base64 for the public key).
    private func fingerprints(_ name: String) throws -> Fingerprints {
        let data = try Data(contentsOf: certificate("fingerprints.json"))
        let all = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: [String: String]])
        let entry = try XCTUnwrap(all[name])
        return Fingerprints(sha1: try XCTUnwrap(entry["sha1"]), sha256: try XCTUnwrap(entry["sha256"]),
                            spkiHex: try XCTUnwrap(entry["spki_sha256_hex"]),
                            spkiBase64: try XCTUnwrap(entry["spki_sha256_base64"]))
    }

    private func colonSeparated(_ hex: String) -> String { grouped(hex, separator: ":") }
    private func spaceSeparated(_ hex: String) -> String { grouped(hex, separator: " ") }
    private func grouped(_ hex: String, separator: String) -> String {
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
    private func counts() throws -> [String: Int] {
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/_admin/counts"))
        let data = try XCTUnwrap(response.body)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Int])
    }

    @discardableResult
    private func assertRejected(_ security: Security, listener: String, as code: HTTPTransportError.Code,
                                containing expected: [String] = [], _ name: String = "",
                                file: StaticString = #filePath, line: UInt = #line) throws -> HTTPTransportError {
        try assertRejected(HTTPTransport(security: security), request(listener), listener: listener, as: code,
                           containing: expected, name, file: file, line: line)
    }

    /// Sends, expects the failure `code` with the `expected` texts in its message, and checks
    /// that the listener received no request.
    @discardableResult
    private func assertRejected(_ transport: HTTPTransport, _ request: HTTPRequest, listener: String,
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

    enum TLSTestError: Error { case unexpectedSuccess }
}

/// Outcomes collected from several threads.
private final class TLSOutcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String] = []

    func add(_ value: String) { lock.withLock { values.append(value) } }
    func count(_ value: String) -> Int { lock.withLock { values.filter { $0 == value }.count } }
    var all: [String] { lock.withLock { values } }
}
