import Foundation
@testable import HTTPTransport
import XCTest

/// `ServerSentEventDecoder` against the HTML Standard's event-stream examples (§9.2.5, §9.2.6)
/// and its parsing rules, with the stream split into chunks in every way.
final class ServerSentEventDecoderTests: XCTestCase {
    // MARK: The standard's examples

    func testDataLinesOfOneBlockAreJoinedWithLineFeed() {
        XCTAssertEqual(decode("data: YHOO\ndata: +2\ndata: 10\n\n"), [ServerSentEvent(data: "YHOO\n+2\n10")])
    }

    func testIdPersistsAndAnEmptyIdResetsIt() {
        let stream = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
        XCTAssertEqual(decode(stream), [
            ServerSentEvent(id: "1", data: "first event"),
            ServerSentEvent(id: nil, data: "second event"),
            ServerSentEvent(id: nil, data: " third event"),
        ])
    }

    func testDataWithoutColonIsEmptyAndAnUnterminatedBlockIsDropped() {
        XCTAssertEqual(decode("data\n\ndata\ndata\n\ndata:"), [
            ServerSentEvent(data: ""),
            ServerSentEvent(data: "\n"),
        ])
    }

    func testOneSpaceAfterTheColonIsOptional() {
        XCTAssertEqual(decode("data:test\n\ndata: test\n\n"), [ServerSentEvent(data: "test"), ServerSentEvent(data: "test")])
    }

    func testEventTypesApplyToTheirBlockOnly() {
        let stream = "event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\ndata: 113411\n\n"
        XCTAssertEqual(decode(stream), [
            ServerSentEvent(event: "add", data: "73857293"),
            ServerSentEvent(event: "remove", data: "2153"),
            ServerSentEvent(event: "message", data: "113411"),
        ])
    }

    // MARK: Lines

    func testCarriageReturnLineFeedAndBothTogetherEndLines() {
        let expected = [ServerSentEvent(data: "a\nb"), ServerSentEvent(data: "c")]
        XCTAssertEqual(decode("data: a\ndata: b\n\ndata: c\n\n"), expected)
        XCTAssertEqual(decode("data: a\rdata: b\r\rdata: c\r\r"), expected)
        XCTAssertEqual(decode("data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n"), expected)
        XCTAssertEqual(decode("data: a\rdata: b\n\r\ndata: c\r\r\n"), expected, "mixed line ends")
    }

    func testCarriageReturnAtTheEndOfAChunkPairsWithLineFeedInTheNext() {
        XCTAssertEqual(decode(chunks: ["data: a\r", "\ndata: b\r", "\n\r", "\n"]), [ServerSentEvent(data: "a\nb")])
    }

    func testCommentsAreIgnored() {
        XCTAssertEqual(decode(":hello\n: world\ndata: x\n:\n\n:only a comment\n\n"), [ServerSentEvent(data: "x")])
    }

    func testEmptyDataLineDispatchesAnEventWithEmptyData() {
        XCTAssertEqual(decode("data:\n\n"), [ServerSentEvent(data: "")])
        XCTAssertEqual(decode("data: \n\n"), [ServerSentEvent(data: "")])
    }

    func testBlockWithoutDataIsNotDispatched() {
        XCTAssertEqual(decode("event: ping\n\nid: 7\n\nretry: 10\n\n\n\n"), [])
    }

    func testOnlyOneLeadingSpaceIsRemoved() {
        XCTAssertEqual(decode("data:   x \n\n"), [ServerSentEvent(data: "  x ")])
        XCTAssertEqual(decode("data:\tx\n\n"), [ServerSentEvent(data: "\tx")], "a tab is kept")
    }

    func testColonInsideTheValueIsKept() {
        XCTAssertEqual(decode("data: a: b:c\n\n"), [ServerSentEvent(data: "a: b:c")])
    }

    func testUnknownAndMisspelledFieldsAreIgnored() {
        XCTAssertEqual(decode("foo: bar\nData: no\ndata : no\n data: no\ndata: yes\n\n"), [ServerSentEvent(data: "yes")])
    }

    func testIncompleteBlockAtTheEndIsNotDispatched() {
        XCTAssertEqual(decode("data: a\n\ndata: b\n"), [ServerSentEvent(data: "a")])
    }

    // MARK: Encoding

    func testLeadingByteOrderMarkIsDropped() {
        XCTAssertEqual(decode("\u{FEFF}data: a\n\n"), [ServerSentEvent(data: "a")])
        XCTAssertEqual(decode(chunks: [Data([0xEF]), Data([0xBB]), Data([0xBF]) + Data("data: a\n\n".utf8)]), [ServerSentEvent(data: "a")])
    }

    func testOnlyTheFirstByteOrderMarkIsDropped() {
        XCTAssertEqual(decode("\u{FEFF}\u{FEFF}data: a\n\ndata: b\n\n"), [ServerSentEvent(data: "b")], "the second makes an unknown field")
        XCTAssertEqual(decode("data: a\n\n\u{FEFF}data: b\n\n"), [ServerSentEvent(data: "a")])
        XCTAssertEqual(decode("data: \u{FEFF}x\n\n"), [ServerSentEvent(data: "\u{FEFF}x")])
    }

    func testInvalidUTF8IsReplaced() {
        let stream = Data("data: a".utf8) + Data([0xFF, 0xC3]) + Data("\nevent: ".utf8) + Data([0xE2, 0x82]) + Data("\n\n".utf8)
        XCTAssertEqual(decode(chunks: [stream]), [ServerSentEvent(event: "\u{FFFD}", data: "a\u{FFFD}\u{FFFD}")])
    }

    func testMultiByteCharactersSplitAcrossChunksAreKept() {
        let bytes = Array("data: é€😀\n\n".utf8)
        XCTAssertEqual(decode(chunks: bytes.map { Data([$0]) }), [ServerSentEvent(data: "é€😀")])
    }

    // MARK: id and retry

    func testIdContainingNulIsIgnored() {
        let events = decode("id: 1\ndata: a\n\nid: 2\u{0}3\ndata: b\n\n")
        XCTAssertEqual(events.map(\.id), ["1", "1"])
    }

    func testIdContainingAnyControlCharacterIsIgnored() {
        for control in ["\u{1}", "\u{8}", "\t", "\u{B}", "\u{C}", "\u{1B}", "\u{1F}", "\u{7F}"] {
            let events = decode("id: 1\ndata: a\n\nid: 2\(control)X-Injected: yes\ndata: b\n\n")
            XCTAssertEqual(events.map(\.id), ["1", "1"], "control \(control.unicodeScalars.first?.value ?? 0)")
        }
    }

    func testIdLongerThanAHeaderLineTakesIsIgnored() {
        let longest = String(repeating: "x", count: ServerSentEventDecoder.maxEventIDLength)
        let events = decode("id: \(longest)\ndata: a\n\nid: \(longest)y\ndata: b\n\n")
        XCTAssertEqual(events.map(\.id), [longest, longest])
    }

    func testIdLengthCountsInvalidBytesAsTheReplacementsSent() {
        var decoder = ServerSentEventDecoder()
        let invalid = Data("id: ".utf8) + Data(repeating: 0xFF, count: 2_000) + Data("\ndata: a\n\n".utf8)
        XCTAssertEqual(decoder.decode(invalid).map(\.id), [nil], "2,000 bytes become 6,000 of U+FFFD")
    }

    func testIdWithCharactersBeyondASCIIIsKept() {
        XCTAssertEqual(decode("id: größe-7\ndata: a\n\n").map(\.id), ["größe-7"])
    }

    func testIdTakesEffectAtTheEndOfItsBlockEvenWithoutData() {
        var decoder = ServerSentEventDecoder()
        XCTAssertEqual(decoder.decode(Data("id: 5\n".utf8)), [])
        XCTAssertEqual(decoder.lastEventID, "", "not before the blank line")
        XCTAssertEqual(decoder.decode(Data("\n".utf8)), [])
        XCTAssertEqual(decoder.lastEventID, "5")
        XCTAssertEqual(decoder.decode(Data("data: x\n\n".utf8)), [ServerSentEvent(id: "5", data: "x")])
    }

    func testIdOfAnUnterminatedBlockIsNotKept() {
        var decoder = ServerSentEventDecoder(lastEventID: "4")
        XCTAssertEqual(decoder.decode(Data("id: 9\ndata: x\n".utf8)), [])
        XCTAssertEqual(decoder.lastEventID, "4")
    }

    func testDecoderForAReconnectionStartsWithTheLastEventID() {
        var decoder = ServerSentEventDecoder(lastEventID: "41")
        XCTAssertEqual(decoder.decode(Data("data: x\n\n".utf8)), [ServerSentEvent(id: "41", data: "x")])
    }

    func testRetryOfDigitsSetsTheReconnectionTime() {
        var decoder = ServerSentEventDecoder()
        XCTAssertEqual(decoder.decode(Data("retry: 50\ndata: x\n\ndata: y\n\n".utf8)), [
            ServerSentEvent(data: "x", retry: 50),
            ServerSentEvent(data: "y"),
        ])
        XCTAssertEqual(decoder.reconnectionTime, 50)
    }

    func testRetryWithAnythingButDigitsIsIgnored() {
        for value in ["", "  50", " 50 ", "5o", "-5", "+5", "5.0", "1e3", "５０"] {
            var decoder = ServerSentEventDecoder()
            let events = decoder.decode(Data("retry:\(value)\ndata: x\n\n".utf8))
            XCTAssertEqual(events, [ServerSentEvent(data: "x")], "retry:\(value)")
            XCTAssertNil(decoder.reconnectionTime, "retry:\(value)")
        }
    }

    func testRetryTooLargeForIntIsTheLargestInt() {
        var decoder = ServerSentEventDecoder()
        _ = decoder.decode(Data("retry: 99999999999999999999999\n\n".utf8))
        XCTAssertEqual(decoder.reconnectionTime, Int.max)
    }

    // MARK: Chunking

    func testEverySplitOfTheStreamGivesTheSameEvents() {
        let stream = Array("\u{FEFF}: c\r\nid: 1\revent: e\r\ndata: é\ndata\r\rretry: 7\r\ndata:x\r\n\r\nid\n\ndata: 😀\r\r\n".utf8)
        let whole = decode(chunks: [Data(stream)])
        XCTAssertEqual(whole.count, 3)
        for split in 0...stream.count {
            XCTAssertEqual(decode(chunks: [Data(stream[..<split]), Data(stream[split...])]), whole, "split at \(split)")
        }
        XCTAssertEqual(decode(chunks: stream.map { Data([$0]) }), whole, "byte by byte")
        XCTAssertEqual(decode(chunks: [Data(), Data(stream), Data()]), whole, "empty chunks")
    }

    // MARK: Helpers

    private func decode(_ stream: String) -> [ServerSentEvent] { decode(chunks: [Data(stream.utf8)]) }

    private func decode(chunks: [String]) -> [ServerSentEvent] { decode(chunks: chunks.map { Data($0.utf8) }) }

    private func decode(chunks: [Data]) -> [ServerSentEvent] {
        var decoder = ServerSentEventDecoder()
        return chunks.flatMap { decoder.decode($0) }
    }
}
