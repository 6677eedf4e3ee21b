import Foundation
@testable import HTTPTransport
import XCTest

/// Every spelling of one address is one origin for the host limits and the circuit breaker, as
/// URL parsers read hosts: none gets past a rule another spelling is held by.
final class OriginSpellingTests: XCTestCase {
    private func origin(_ text: String) throws -> Origin { Origin(try XCTUnwrap(URL(string: text))) }

    func testOtherSpellingsOfAnIPv4AddressAreTheSameOrigin() throws {
        let canonical = try origin("http://127.0.0.1:8080/")
        for spelling in ["127.1", "2130706433", "0x7f.1", "0177.0.0.1", "0x7F000001", "127.0.0.1.", "127.0.1"] {
            XCTAssertEqual(try origin("http://\(spelling):8080/"), canonical, spelling)
        }
        XCTAssertEqual(canonical.host, "127.0.0.1")
    }

    func testOtherSpellingsOfAnIPv6AddressAreTheSameOrigin() throws {
        XCTAssertEqual(try origin("http://[::FFFF:7F00:1]:8080/"), try origin("http://127.0.0.1:8080/"))
        XCTAssertEqual(try origin("http://[0:0:0:0:0:0:0:1]/"), try origin("http://[::1]/"))
        XCTAssertEqual(try origin("http://[2001:DB8::0:1]/").host, "2001:db8::1")
        XCTAssertEqual(try origin("http://[2001:db8::1]:80/").description, "http://[2001:db8::1]:80")
    }

    func testHostNamesCompareWithoutCaseOrTheirFinalDot() throws {
        XCTAssertEqual(try origin("https://API.Example.COM./"), try origin("https://api.example.com:443/"))
        XCTAssertNotEqual(try origin("http://127.0.0.2/"), try origin("http://127.0.0.1/"))
        XCTAssertNotEqual(try origin("http://example.com/"), try origin("https://example.com/"))
    }

    func testAnOpenCircuitHoldsEverySpellingOfItsAddress() {
        var configuration = Session.Configuration()
        configuration.circuitBreaker = CircuitBreaker(failureThreshold: 1, openDuration: 30)
        let stub = ClockedStub(clock: ManualClock()) { request, _ in RawResponse(request: request, statusCode: HTTPStatusCode(rawValue: 503)) }
        let transport = stub.transport(configuration)
        _ = transport.send(request: HTTPRequest(endpoint: "http://127.0.0.1:8080/jobs"))
        for spelling in ["127.1", "2130706433", "0x7f.1", "0177.0.0.1", "[::ffff:7f00:1]"] {
            let result = transport.send(request: HTTPRequest(endpoint: "http://\(spelling):8080/jobs"))
            XCTAssertEqual(result.error?.code, .circuitOpen, spelling)
        }
        XCTAssertEqual(stub.count, 1, "nothing was sent past the open circuit")
    }
}
