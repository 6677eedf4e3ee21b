import Foundation
@testable import HTTPTransport
import XCTest

/// What a hostile or broken server cannot make a stream reader do: hold an endless line, sleep
/// for ever before reconnecting (the storm of reconnects: ServerSentEventReconnectionTests); and
/// a second reader of a body leaves the first alone.
final class StreamingLimitsTests: XCTestCase {
    func testALineWithoutItsEndIsHeldOnlyUpToItsLimit() {
        var splitter = LineSplitter()
        splitter.append(Data(repeating: 0x61, count: LineSplitter.maxLineLength))
        XCTAssertNil(splitter.nextLine())
        XCTAssertFalse(splitter.isOverlong)
        splitter.append(Data([0x61]))
        XCTAssertNil(splitter.nextLine())
        XCTAssertTrue(splitter.isOverlong)
    }

    func testAnEventWithoutItsEndIsHeldOnlyUpToItsLimit() {
        var decoder = ServerSentEventDecoder()
        _ = decoder.decode(Data("data: ".utf8) + Data(repeating: 0x61, count: ServerSentEventDecoder.maxEventSize))
        XCTAssertTrue(decoder.isOverlong)
        var lines = ServerSentEventDecoder()
        let manyLines = Data(String(repeating: "data: \(String(repeating: "b", count: 1_000))\n", count: 17_000).utf8)
        XCTAssertTrue(lines.decode(manyLines).isEmpty)
        XCTAssertTrue(lines.isOverlong, "data lines of one block without its blank line")
    }

    func testTheServersRetryIsCappedAtThePolicysMaximum() {
        var decoder = ServerSentEventDecoder()
        _ = decoder.decode(Data("retry: 99999999999\n\n".utf8))
        var reconnection = ServerSentEventReconnection(random: { 1 })
        reconnection.connectionOpened()
        guard case .reconnect(let seconds) = reconnection.connectionEnded(.ended, decoder: decoder, deliveredEvents: false) else {
            return XCTFail("expected a reconnection")
        }
        XCTAssertEqual(seconds, 60)
    }

    func testASecondReaderOfTheBodyFailsWithoutStoppingTheFirst() async throws {
        let stream = try await HTTPTransport().stream(HTTPRequest(endpoint: server.http + "/ndjson?count=20"))
        var first = stream.body.makeAsyncIterator()
        do {
            var second = stream.body.makeAsyncIterator()
            do {
                _ = try await second.next()
                XCTFail("a second reader must fail")
            } catch {
                XCTAssertEqual(error.code, .other)
            }
        }
        var received = Data()
        while let chunk = try await first.next() { received.append(chunk) }
        XCTAssertEqual(received.split(separator: 0x0A).count, 20)
    }
}
