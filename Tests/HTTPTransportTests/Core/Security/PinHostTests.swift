import Foundation
@testable import HTTPTransport
import XCTest

/// Which host a pin applies to: the host as libcurl connects to it, whatever the URL's spelling
/// (issue 12.8), and pin entries whose host is not a host name fail closed instead of pinning
/// nothing. Against the local server's `https` listener (leaf for localhost/127.0.0.1).
final class PinHostTests: XCTestCase, TLSFixtures {
    /// Other spellings of 127.0.0.1 that libcurl connects to as 127.0.0.1.
    static let loopbackSpellings = ["127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1", "127.0.0.1"]

    func testWrongPinForAnAddressAppliesToEverySpellingOfIt() throws {
        let wrong = try fingerprints("expired").sha256
        let security = caSecurity(pins: [TrustPolicyManager.Certificate(host: "127.0.0.1", fingerprint: .sha256(fingerprint: wrong))])
        let transport = HTTPTransport(security: security)
        for spelling in Self.loopbackSpellings {
            try assertRejected(transport, request("https", host: spelling), listener: "https", as: .pinningFailed,
                               containing: ["127.0.0.1"], spelling)
        }
    }

    func testRightPinForAnAddressAcceptsEverySpellingOfIt() throws {
        let right = try fingerprints("leaf").sha256
        let transport = HTTPTransport(security: caSecurity(
            pins: [TrustPolicyManager.Certificate(host: "127.0.0.1", fingerprint: .sha256(fingerprint: right))]))
        for spelling in Self.loopbackSpellings {
            XCTAssertEqual(try sendOK(transport, request("https", host: spelling)).httpStatus, .ok, spelling)
        }
    }

    func testPinEntrySpelledOddlyAppliesToTheAddress() throws {
        let wrong = try fingerprints("expired").sha256
        for spelling in ["127.1", "0x7f.0.0.1", "[::ffff:127.0.0.1]", "::ffff:7f00:1"] {
            let security = caSecurity(pins: [TrustPolicyManager.Certificate(host: spelling, fingerprint: .sha256(fingerprint: wrong))])
            try assertRejected(HTTPTransport(security: security), request("https", host: "127.0.0.1"), listener: "https",
                               as: .pinningFailed, spelling)
        }
    }

    func testMalformedPinEntryHostsFailEverySendBeforeConnecting() throws {
        let right = try fingerprints("leaf").sha256
        let malformed = ["https://localhost", "localhost:443", "localhost/", "", "   ", "local host", "*.", "a..b"]
        for host in malformed {
            let security = caSecurity(pins: [TrustPolicyManager.Certificate(host: host, fingerprint: .sha256(fingerprint: right))])
            let error = try assertRejected(HTTPTransport(security: security), request("https"), listener: "https",
                                           as: .pinningFailed, containing: ["pin entry host"], host.debugDescription)
            XCTAssertTrue(error.message.contains(host.debugDescription), error.message)
        }
    }

    func testOneMalformedEntryFailsHostsThatOtherEntriesPinCorrectly() throws {
        let right = try fingerprints("leaf").sha256
        let security = caSecurity(pins: [
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: right)),
            TrustPolicyManager.Certificate(host: "https://api.example.com", fingerprint: .sha256(fingerprint: right)),
        ])
        try assertRejected(HTTPTransport(security: security), request("https"), listener: "https", as: .pinningFailed,
                           containing: ["is a URL"])
    }

    func testEntryPatternsAreReadLikeHosts() {
        XCTAssertEqual(try PinnedHostMatcher.pattern(from: " API.Example.COM. ").get(), "api.example.com")
        XCTAssertEqual(try PinnedHostMatcher.pattern(from: "*.example.com").get(), "*.example.com")
        XCTAssertEqual(try PinnedHostMatcher.pattern(from: "[::1]").get(), "::1")
        XCTAssertEqual(try PinnedHostMatcher.pattern(from: "0x7f.1").get(), "127.0.0.1")
        XCTAssertEqual(try PinnedHostMatcher.pattern(from: "[::ffff:10.0.0.1]").get(), "10.0.0.1")
        for bad in ["http://x", "x:8443", "x/y", "", "a b", "*", "*.", "a*.b", "a..b"] {
            XCTAssertThrowsError(try PinnedHostMatcher.pattern(from: bad).get(), bad)
        }
    }
}
