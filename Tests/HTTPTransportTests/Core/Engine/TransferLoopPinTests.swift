import Foundation
import HTTPTransport
import XCTest

/// Pins on the session's transfer loop (`send(requests:)` runs there): checked in the
/// handshake, before any request byte, as for a blocking send.
final class TransferLoopPinTests: XCTestCase, TLSFixtures {
    func testAWrongPinFailsOnTheLoopBeforeAnyRequestByte() throws {
        let wrong = try fingerprints("expired").sha256
        let security = caSecurity(pins: [TrustPolicyManager.Certificate(host: "127.0.0.1", fingerprint: .sha256(fingerprint: wrong))])
        let before = try counts()
        let results = HTTPTransport(security: security).send(requests: [request("https", host: "127.0.0.1"),
                                                                        request("https", host: "127.0.0.1")])
        let after = try counts()
        XCTAssertEqual(after["https", default: -1] - before["https", default: -1], 0, "the https listener received a request")
        XCTAssertEqual(results.map { $0.error?.code }, [.pinningFailed, .pinningFailed])
    }

    func testTheRightPinPassesOnTheLoop() throws {
        let right = try fingerprints("leaf").sha256
        let security = caSecurity(pins: [TrustPolicyManager.Certificate(host: "127.0.0.1", fingerprint: .sha256(fingerprint: right))])
        let results = HTTPTransport(security: security).send(requests: [request("https", host: "127.0.0.1")])
        XCTAssertEqual(results.first?.value?.httpStatus, .ok, "\(String(describing: results.first?.error))")
    }
}
