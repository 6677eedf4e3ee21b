import Foundation
import HTTPTransport
import Logging
import XCTest

/// TLS over a session's life: `.debug` reports on every new handshake, pinned sessions never
/// reuse an unchecked connection or resume an unchecked TLS session, many threads share one
/// pinned transport, and client certificates (mutual TLS). Against the local server's TLS
/// listeners and the private PKI of the test run (see `TLSTests`).
final class TLSSessionTests: XCTestCase, TLSFixtures {
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
}

/// Outcomes collected from several threads.
private final class TLSOutcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String] = []

    func add(_ value: String) { lock.withLock { values.append(value) } }
    func count(_ value: String) -> Int { lock.withLock { values.filter { $0 == value }.count } }
    var all: [String] { lock.withLock { values } }
}
