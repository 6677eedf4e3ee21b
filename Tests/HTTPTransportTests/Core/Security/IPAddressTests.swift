import Foundation
@testable import HTTPTransport
import XCTest

/// `IPAddress`: reading every spelling of an address, canonical text, and the special-purpose
/// ranges `.publicOnly` refuses.
final class IPAddressTests: XCTestCase {
    func testStrictReadingAcceptsCanonicalForms() {
        XCTAssertEqual(IPAddress("127.0.0.1")?.description, "127.0.0.1")
        XCTAssertEqual(IPAddress("::1")?.description, "::1")
        XCTAssertEqual(IPAddress("[::1]")?.description, "::1")
        XCTAssertEqual(IPAddress("2001:DB8:0:0:1:0:0:1")?.description, "2001:db8::1:0:0:1")
        XCTAssertEqual(IPAddress("::ffff:127.0.0.1")?.description, "::ffff:127.0.0.1")
        XCTAssertEqual(IPAddress("::ffff:7f00:1")?.description, "::ffff:127.0.0.1")
        XCTAssertEqual(IPAddress("fe80::")?.description, "fe80::")
        XCTAssertEqual(IPAddress("1:0:0:2:0:0:0:3")?.description, "1:0:0:2::3")
        XCTAssertEqual(IPAddress("0:0:0:0:0:0:0:0")?.description, "::")
    }

    func testStrictReadingRejectsEverythingElse() {
        for text in ["", "127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1", "127.0.0.01", "256.0.0.1", "1.2.3.4.",
                     "localhost", "1:2:3:4:5:6:7:8:9", "1::2::3", ":1", "1:", "::1%eth0", "[::1", "12345::", "::ffff:1.2.3",
                     "1:2:3:4:5:6:7::8", "::1.2.3.4.5", " 1.2.3.4"] {
            XCTAssertNil(IPAddress(text), text)
        }
    }

    func testHostReadingAcceptsEverySpellingOfAnIPv4Address() {
        for host in ["127.0.0.1", "127.1", "127.0.1", "2130706433", "0x7f000001", "0x7f.0.0.1", "0177.0.0.1", "0x7F.1",
                     "127.0.0.1."] {
            XCTAssertEqual(IPAddress(host: host)?.description, "127.0.0.1", host)
        }
        XCTAssertEqual(IPAddress(host: "[::ffff:127.0.0.1]")?.description, "::ffff:127.0.0.1")
        for host in ["example.com", "1.2.3.4.5", "0x1g.0.0.1", "08.0.0.1", "4294967296", "1.2.3.256", "256.1", "[::1", "a.1"] {
            XCTAssertNil(IPAddress(host: host), host)
        }
    }

    func testBytesOfBothFamilies() {
        XCTAssertEqual(IPAddress(bytes: [10, 0, 0, 7])?.description, "10.0.0.7")
        XCTAssertEqual(IPAddress(bytes: [UInt8](repeating: 0, count: 15) + [1])?.description, "::1")
        XCTAssertNil(IPAddress(bytes: [1, 2, 3]))
    }

    func testSpecialRangesOfIPv4() {
        let expected: [String: IPAddressRange] = [
            "0.0.0.0": .unspecified, "0.1.2.3": .unspecified, "10.1.2.3": .privateNetwork, "100.64.0.1": .sharedAddressSpace,
            "100.127.255.255": .sharedAddressSpace, "127.0.0.1": .loopback, "127.255.255.254": .loopback,
            "169.254.1.1": .linkLocal, "172.16.0.1": .privateNetwork, "172.31.255.255": .privateNetwork,
            "192.0.0.8": .reserved, "192.0.2.1": .documentation, "192.168.1.1": .privateNetwork, "198.18.0.1": .benchmarking,
            "198.19.255.255": .benchmarking, "198.51.100.7": .documentation, "203.0.113.9": .documentation,
            "224.0.0.1": .multicast, "239.255.255.250": .multicast, "240.0.0.1": .reserved, "255.255.255.255": .broadcast,
            "169.254.169.254": .cloudMetadata, "169.254.170.2": .cloudMetadata, "168.63.129.16": .cloudMetadata,
            "100.100.100.200": .cloudMetadata,
        ]
        for (text, range) in expected {
            XCTAssertEqual(IPAddress(text)?.specialRange, range, text)
        }
    }

    func testSpecialRangesOfIPv6() {
        let expected: [String: IPAddressRange] = [
            "::": .unspecified, "::1": .loopback, "fe80::1": .linkLocal, "fc00::1": .uniqueLocal, "fd12:3456::1": .uniqueLocal,
            "ff02::1": .multicast, "2001:db8::1": .documentation, "3fff::1": .documentation, "2001:2::1": .benchmarking,
            "2001::1": .reserved, "100::1": .reserved, "fec0::1": .privateNetwork, "64:ff9b:1::1": .privateNetwork,
            "fd00:ec2::254": .cloudMetadata, "::2": .reserved, "4000::1": .reserved,
            // IPv6 forms that reach IPv4 are judged by the IPv4 address.
            "::ffff:127.0.0.1": .loopback, "::ffff:10.0.0.1": .privateNetwork, "::ffff:169.254.169.254": .cloudMetadata,
            "64:ff9b::7f00:1": .loopback, "64:ff9b::a00:1": .privateNetwork, "2002:7f00:1::": .loopback,
            "2002:c0a8:101::1": .privateNetwork,
        ]
        for (text, range) in expected {
            XCTAssertEqual(IPAddress(text)?.specialRange, range, text)
        }
    }

    func testOrdinaryAddressesArePublic() {
        for text in ["8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "192.0.3.1",
                     "198.20.0.0", "223.255.255.255", "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8",
                     "64:ff9b::808:808", "2002:808:808::1"] {
            XCTAssertEqual(IPAddress(text)?.isPublic, true, text)
        }
    }

    func testPolicyTextOfAMappedAddressIsTheIPv4AddressItReaches() throws {
        let mapped = try XCTUnwrap(IPAddress("::ffff:127.0.0.2"))
        XCTAssertEqual(PeerAddress.ip(mapped).policyText, "127.0.0.2")
        XCTAssertEqual(PeerAddress.ip(try XCTUnwrap(IPAddress("::1"))).policyText, "::1")
        XCTAssertEqual(PeerAddress.unixSocket(path: "/run/x.sock").policyText, "/run/x.sock")
    }
}
