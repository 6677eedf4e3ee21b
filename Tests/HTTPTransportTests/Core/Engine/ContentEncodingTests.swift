@testable import HTTPTransport
import XCTest

/// A body in a coding libcurl cannot decode arrives as it was sent, with its `Content-Encoding`
/// header, and so does one in a transfer coding it does not know; decoding stays on for every
/// other response, on the same pooled handle too.
final class ContentEncodingTests: XCTestCase {
    /// `UNKNOWN_CODING_BODY` of the test server's transfer routes.
    private let rawBody = Data([0x1F, 0x8B, 0x00] + Array("raw ".utf8) + [0xFF, 0xFE] + Array(" body\r\n".utf8) + [0x00])

    private func oneHandleTransport() -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.maxIdleHandles = 1
        return HTTPTransport(session: Session(configuration: configuration))
    }

    func testAnUnknownCodingPassesThroughUndecodedWithItsHeader() throws {
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/encoding/unknown"))
        XCTAssertEqual(response.body, rawBody)
        XCTAssertEqual(response.header(named: "Content-Encoding"), "foo")
    }

    func testAListNamingOneUnknownCodingPassesThroughUndecoded() throws {
        for coding in ["gzip, foo", "FOO", "compress", "x-custom ,identity"] {
            let query = coding.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/encoding/unknown?coding=\(query)"))
            XCTAssertEqual(response.body, rawBody, coding)
            XCTAssertEqual(response.header(named: "Content-Encoding"), coding)
        }
    }

    func testTheNextTransferOnTheSameHandleIsDecodedAgain() throws {
        let transport = oneHandleTransport()
        for _ in 0..<2 {
            let raw = try sendOK(transport, HTTPRequest(endpoint: server.http + "/encoding/unknown"))
            XCTAssertEqual(raw.body, rawBody)
            let decoded = try sendOK(transport, HTTPRequest(endpoint: server.http + "/gzip"))
            XCTAssertTrue(decoded.metrics.connectionReused)
            XCTAssertEqual(decoded.header(named: "Content-Encoding"), "gzip")
            XCTAssertEqual(try decoded.getJSONDictionary()?["gzipped"] as? Bool, true)
        }
    }

    func testAKnownCodingThatIsNotAppliedStillFailsAsMalformed() {
        // "gzip" names a coding libcurl decodes: bytes that are no gzip stream are an error.
        let result = HTTPTransport().send(request: HTTPRequest(endpoint: server.http + "/encoding/unknown?coding=gzip"))
        XCTAssertEqual(result.error?.code, .badResponse, "\(String(describing: result.error))")
    }

    /// libcurl 8 refuses a transfer coding it does not know while it reads the header, before any
    /// callback could let the body through: there the rule is a clear `.badResponse`.
    private func skipOnALibcurlThatRefusesUnknownTransferCodings() throws {
        try XCTSkipIf(CurlEngine.refusesUnknownTransferCodings, "libcurl \(CurlEngine.libcurlVersion) refuses unknown transfer codings")
    }

    func testAnUnknownTransferCodingPassesTheBodyThroughAsSent() throws {
        // The HTTP caching tests' "HTTP cache must not store `Transfer-Encoding` header field"
        // sends this value, with a body that ends at the connection's close.
        try skipOnALibcurlThatRefusesUnknownTransferCodings()
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/encoding/unknown-transfer"))
        XCTAssertEqual(response.body, rawBody)
    }

    func testOnLibcurl8AnUnknownTransferCodingFailsAsMalformed() throws {
        try XCTSkipUnless(CurlEngine.refusesUnknownTransferCodings, "libcurl \(CurlEngine.libcurlVersion) passes unknown transfer codings")
        for coding in ["arizqhypgxofwne", "foo, chunked"] {
            let query = coding.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let result = HTTPTransport().send(request: HTTPRequest(endpoint: server.http + "/encoding/unknown-transfer?coding=\(query)"))
            XCTAssertEqual(result.error?.code, .badResponse, coding)
            XCTAssertTrue(result.error?.message.contains("Transfer-Encoding") ?? false, "\(String(describing: result.error))")
        }
    }

    func testAnUnknownTransferCodingBeforeChunkedIsDechunkedOnly() throws {
        try skipOnALibcurlThatRefusesUnknownTransferCodings()
        for coding in ["foo, chunked", "X-Custom,CHUNKED"] {
            let query = coding.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/encoding/unknown-transfer?coding=\(query)"))
            XCTAssertEqual(response.body, rawBody, coding)
        }
    }

    func testAResponseInAnUnknownTransferCodingIsStoredWithoutItsTransferEncoding() throws {
        try skipOnALibcurlThatRefusesUnknownTransferCodings()
        let transport = cachingTransport(HTTPCache(directory: nil, maxBytes: 1 << 20))
        let request = HTTPRequest(endpoint: server.http + "/encoding/unknown-transfer?key=\(UUID().uuidString)")
        _ = try sendOK(transport, request)
        let hit = try sendOK(transport, request)
        XCTAssertEqual(hit.metrics.cacheStatus, .hit)
        XCTAssertEqual(hit.body, rawBody)
        XCTAssertNil(hit.header(named: "Transfer-Encoding"))
    }

    func testTheNextTransferAfterAnUnknownTransferCodingIsDecodedAgain() throws {
        let transport = oneHandleTransport()
        _ = CurlEngine.refusesUnknownTransferCodings ? nil : try sendOK(transport, HTTPRequest(endpoint: server.http + "/encoding/unknown-transfer?coding=foo%2C%20chunked"))
        let decoded = try sendOK(transport, HTTPRequest(endpoint: server.http + "/gzip"))
        XCTAssertEqual(try decoded.getJSONDictionary()?["gzipped"] as? Bool, true)
    }

    func testTheCodingsLibcurlDecodesAreRecognised() {
        XCTAssertTrue(CurlEngine.decodesEveryContentCoding("gzip"))
        XCTAssertTrue(CurlEngine.decodesEveryContentCoding("X-GZIP, deflate,, identity"))
        XCTAssertTrue(CurlEngine.decodesEveryContentCoding(""))
        XCTAssertFalse(CurlEngine.decodesEveryContentCoding("gzip, foo"))
        XCTAssertFalse(CurlEngine.decodesEveryContentCoding("compress"))
        XCTAssertFalse(CurlEngine.decodesEveryContentCoding("chunked"), "no content coding")
    }
}
