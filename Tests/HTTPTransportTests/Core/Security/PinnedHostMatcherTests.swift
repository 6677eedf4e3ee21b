import Foundation
@testable import HTTPTransport
import XCTest

/// Which `Security` entries apply to a host, and how fingerprint strings are read. No network.
final class PinnedHostMatcherTests: XCTestCase {
    private let a = String(repeating: "A", count: 40)
    private let b = String(repeating: "B", count: 40)
    private let c = String(repeating: "C", count: 40)

    private func makeMatcher(_ entries: [(String, TrustPolicyManager.Certificate.Fingerprint)]) -> PinnedHostMatcher {
        PinnedHostMatcher(certificates: entries.map { TrustPolicyManager.Certificate(host: $0.0, fingerprint: $0.1) })
    }

    private func sha1Pins(_ matcher: PinnedHostMatcher, _ host: String) -> [String] {
        matcher.policy(for: host).sha1Pins.map { $0.map { String(format: "%02X", $0) }.joined() }
    }

    func testHostCoversItselfAndItsSubdomainsAtLabelBoundaries() {
        let matcher = makeMatcher([("example.com", .sha1(fingerprint: a))])
        XCTAssertEqual(sha1Pins(matcher, "example.com"), [a])
        XCTAssertEqual(sha1Pins(matcher, "api.example.com"), [a])
        XCTAssertEqual(sha1Pins(matcher, "a.b.api.example.com"), [a])
        XCTAssertEqual(sha1Pins(matcher, "badexample.com"), [])
        XCTAssertEqual(sha1Pins(matcher, "example.com.evil.net"), [])
        XCTAssertEqual(sha1Pins(matcher, "example.co"), [])
        XCTAssertEqual(sha1Pins(matcher, "com"), [])
        XCTAssertTrue(matcher.policy(for: "other.org").isStandard)
    }

    func testWildcardCoversExactlyOneLabel() {
        let matcher = makeMatcher([("*.example.com", .sha1(fingerprint: a))])
        XCTAssertEqual(sha1Pins(matcher, "api.example.com"), [a])
        XCTAssertEqual(sha1Pins(matcher, "www.example.com"), [a])
        XCTAssertEqual(sha1Pins(matcher, "example.com"), [])
        XCTAssertEqual(sha1Pins(matcher, "a.b.example.com"), [])
        XCTAssertEqual(sha1Pins(matcher, "badexample.com"), [])
        XCTAssertEqual(sha1Pins(matcher, "api.badexample.com"), [])
        XCTAssertEqual(sha1Pins(matcher, ".example.com"), [])
    }

    func testMostSpecificEntryWins() {
        let matcher = makeMatcher([
            ("example.com", .sha1(fingerprint: a)),
            ("*.example.com", .sha1(fingerprint: b)),
            ("api.example.com", .sha1(fingerprint: c)),
        ])
        XCTAssertEqual(sha1Pins(matcher, "api.example.com"), [c], "exact beats wildcard and parent")
        XCTAssertEqual(sha1Pins(matcher, "www.example.com"), [b], "wildcard beats parent")
        XCTAssertEqual(sha1Pins(matcher, "example.com"), [a])
        XCTAssertEqual(sha1Pins(matcher, "x.www.example.com"), [a], "two labels down: only the parent")
        XCTAssertEqual(sha1Pins(matcher, "x.api.example.com"), [c], "api.example.com covers its subdomains too")
    }

    func testLongerParentDomainWinsOverShorter() {
        let matcher = makeMatcher([
            ("com", .sha1(fingerprint: a)),
            ("example.com", .sha1(fingerprint: b)),
        ])
        XCTAssertEqual(sha1Pins(matcher, "api.example.com"), [b])
        XCTAssertEqual(sha1Pins(matcher, "api.other.com"), [a])
    }

    func testEntriesWithTheSamePatternCombine() {
        let matcher = makeMatcher([
            ("example.com", .sha1(fingerprint: a)),
            ("Example.COM.", .sha1(fingerprint: b)),
            ("example.com", .publicKey(fingerprint: "sha256//" + Data(repeating: 7, count: 32).base64EncodedString())),
        ])
        let policy = matcher.policy(for: "api.example.com")
        XCTAssertEqual(sha1Pins(matcher, "api.example.com"), [a, b])
        XCTAssertEqual(policy.publicKeyPins, [Data(repeating: 7, count: 32).base64EncodedString()])
    }

    func testMatchingIsCaseInsensitiveAndIgnoresTrailingDotsAndBrackets() {
        let matcher = makeMatcher([("API.Example.com", .sha1(fingerprint: a)), ("[::1]", .sha1(fingerprint: b))])
        XCTAssertEqual(sha1Pins(matcher, "api.EXAMPLE.com"), [a])
        XCTAssertEqual(sha1Pins(matcher, "api.example.com."), [a])
        XCTAssertEqual(sha1Pins(matcher, "v1.Api.Example.Com"), [a])
        XCTAssertEqual(sha1Pins(matcher, "::1"), [b])
        XCTAssertEqual(sha1Pins(matcher, "[::1]"), [b])
    }

    func testLeadingDotMeansTheDomain() {
        let matcher = makeMatcher([(".example.com", .sha1(fingerprint: a))])
        XCTAssertEqual(sha1Pins(matcher, "example.com"), [a])
        XCTAssertEqual(sha1Pins(matcher, "api.example.com"), [a])
        XCTAssertEqual(sha1Pins(matcher, "badexample.com"), [])
    }

    func testIPAddressesMatchOnlyThemselves() {
        let matcher = makeMatcher([
            ("0.0.1", .sha1(fingerprint: a)),
            ("*.0.0.1", .sha1(fingerprint: b)),
            ("10.0.0.2", .sha1(fingerprint: c)),
        ])
        XCTAssertEqual(sha1Pins(matcher, "127.0.0.1"), [])
        XCTAssertEqual(sha1Pins(matcher, "10.0.0.2"), [c])
        XCTAssertEqual(sha1Pins(matcher, "110.0.0.2"), [])
    }

    func testDebugAndDisableFlags() {
        let matcher = makeMatcher([("debug.example", .debug), ("off.example", .disable)])
        XCTAssertTrue(matcher.policy(for: "debug.example").debug)
        XCTAssertFalse(matcher.policy(for: "debug.example").disableVerification)
        XCTAssertTrue(matcher.policy(for: "a.off.example").disableVerification)
        XCTAssertFalse(matcher.policy(for: "off.example.net").disableVerification)
    }

    func testNoEntriesMeansStandardVerification() {
        XCTAssertTrue(PinnedHostMatcher(certificates: []).policy(for: "example.com").isStandard)
        XCTAssertFalse(Security.noEvaluation.needsHandshakeCallback)
        XCTAssertTrue(Security.noEvaluation.certificates.isEmpty)
        XCTAssertNil(Security.noEvaluation.trustedRootCertificates)
    }

    // MARK: Fingerprint strings

    func testHexFingerprintSpellings() {
        XCTAssertEqual(PinnedHostMatcher.hexBytes("0aFF"), [0x0A, 0xFF])
        XCTAssertEqual(PinnedHostMatcher.hexBytes("0a:ff"), [0x0A, 0xFF])
        XCTAssertEqual(PinnedHostMatcher.hexBytes("0A FF"), [0x0A, 0xFF])
        XCTAssertEqual(PinnedHostMatcher.hexBytes("0 A:F F"), [0x0A, 0xFF])
        XCTAssertNil(PinnedHostMatcher.hexBytes(""))
        XCTAssertNil(PinnedHostMatcher.hexBytes("0"))
        XCTAssertNil(PinnedHostMatcher.hexBytes("0g"))
        XCTAssertNil(PinnedHostMatcher.hexBytes("+f"))
        XCTAssertNil(PinnedHostMatcher.hexBytes("-0"))
        XCTAssertNil(PinnedHostMatcher.hexBytes("0x0a"))
        XCTAssertNil(PinnedHostMatcher.hexBytes("０a"))
    }

    func testPublicKeyFingerprintSpellings() {
        let digest = Data((0..<32).map { UInt8($0 * 7 & 0xFF) })
        let base64 = digest.base64EncodedString()
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        XCTAssertEqual(PinnedHostMatcher.publicKeyBase64(base64), base64)
        XCTAssertEqual(PinnedHostMatcher.publicKeyBase64("sha256//" + base64), base64)
        XCTAssertEqual(PinnedHostMatcher.publicKeyBase64("SHA256//" + base64), base64)
        XCTAssertEqual(PinnedHostMatcher.publicKeyBase64(" " + base64 + " "), base64)
        XCTAssertEqual(PinnedHostMatcher.publicKeyBase64(String(base64.dropLast())), base64, "padding optional")
        XCTAssertEqual(PinnedHostMatcher.publicKeyBase64(hex), base64)
        XCTAssertEqual(PinnedHostMatcher.publicKeyBase64(hex.uppercased()), base64)
        XCTAssertNil(PinnedHostMatcher.publicKeyBase64(""))
        XCTAssertNil(PinnedHostMatcher.publicKeyBase64("sha256//"))
        XCTAssertNil(PinnedHostMatcher.publicKeyBase64("sha256//AAAA"), "too short")
        XCTAssertNil(PinnedHostMatcher.publicKeyBase64(String(hex.dropLast(2))), "31 bytes")
        XCTAssertNil(PinnedHostMatcher.publicKeyBase64("sha1//" + base64))
        XCTAssertNil(PinnedHostMatcher.publicKeyBase64(base64 + ";sha256//" + base64))
    }

    func testInvalidPinsAreReported() {
        let validKey = "sha256//" + Data(repeating: 1, count: 32).base64EncodedString()
        let cases: [TrustPolicyManager.Certificate.Fingerprint] = [
            .sha1(fingerprint: String(repeating: "A", count: 38)),
            .sha1(fingerprint: String(repeating: "A", count: 64)),
            .sha256(fingerprint: String(repeating: "A", count: 40)),
            .sha256(fingerprint: "zz"),
            .publicKey(fingerprint: "nope"),
        ]
        for fingerprint in cases {
            let policy = makeMatcher([("example.com", .publicKey(fingerprint: validKey)), ("example.com", fingerprint)])
                .policy(for: "example.com")
            XCTAssertNotNil(policy.invalidPin, "\(fingerprint)")
        }
        XCTAssertNil(makeMatcher([("example.com", .publicKey(fingerprint: validKey))]).policy(for: "example.com").invalidPin)
    }

    func testTooManyPublicKeyPinsNextToCertificatePinsAreReported() {
        var entries: [(String, TrustPolicyManager.Certificate.Fingerprint)] = [("example.com", .sha1(fingerprint: a))]
        for index in 0...PinnedHostMatcher.maxCallbackPublicKeyPins {
            entries.append(("example.com", .publicKey(fingerprint: Data(repeating: UInt8(index), count: 32).base64EncodedString())))
        }
        XCTAssertNotNil(makeMatcher(entries).policy(for: "example.com").invalidPin)
        XCTAssertNil(makeMatcher(Array(entries.dropFirst())).policy(for: "example.com").invalidPin,
                     "public-key pins alone go to libcurl, without a limit")
    }

    func testWhichPoliciesNeedTheHandshakeCallback() {
        func security(_ fingerprint: TrustPolicyManager.Certificate.Fingerprint) -> Security {
            Security(certificates: [TrustPolicyManager.Certificate(host: "example.com", fingerprint: fingerprint)])
        }
        XCTAssertTrue(security(.sha1(fingerprint: a)).needsHandshakeCallback)
        XCTAssertTrue(security(.sha256(fingerprint: a + a)).needsHandshakeCallback)
        XCTAssertTrue(security(.debug).needsHandshakeCallback)
        XCTAssertFalse(security(.publicKey(fingerprint: "sha256//" + Data(count: 32).base64EncodedString())).needsHandshakeCallback)
        XCTAssertFalse(security(.disable).needsHandshakeCallback)
    }
}
