import Foundation

/// Reads a `text/event-stream` body as it arrives, chunk by chunk, following the HTML Standard's
/// "Parsing an event stream" and "Interpreting an event stream" (§9.2.6): UTF-8 with invalid
/// bytes replaced, a leading byte order mark dropped, CR, LF or CRLF ending a line, `:` comment
/// lines, a line without a colon read as a field name with an empty value, one space after the
/// colon dropped, `data` lines joined with LF, a blank line dispatching the block (only when it
/// had a `data` line), `id` values holding NUL ignored, `retry` only when all ASCII digits,
/// unknown fields ignored. Beyond the standard, an `id` that could not be sent back as
/// `Last-Event-ID` is ignored as one holding NUL is: one holding another control character (a
/// header injection: some servers read a vertical tab or form feed as a line break) or longer
/// than `maxEventIDLength` (more than servers take in a header line; libcurl refuses to send it). An incomplete block at the end of the stream is never dispatched.
///
/// Chunks may split the stream anywhere (inside a UTF-8 sequence or between the CR and LF of a
/// CRLF): the events are the same as for the whole body at once. One decoder reads one
/// connection's body; a reconnection starts a new one with the last event ID carried over.
struct ServerSentEventDecoder {
    /// The last event ID as of the last blank line ("" for none): what a reconnection sends as
    /// `Last-Event-ID`. An `id` line takes effect at the end of its block, dispatched or not.
    private(set) var lastEventID: String
    /// The reconnection time in milliseconds set by the last valid `retry` line, if any.
    private(set) var reconnectionTime: Int?

    /// The bytes of the line not yet ended.
    private var line: [UInt8] = []
    /// The last chunk ended with CR: an LF at the start of the next one belongs to that CR.
    private var followsCarriageReturn = false
    private var atStreamStart = true
    // The block being read (the standard's data, event type and last event ID buffers).
    private var data: [UInt8] = []
    private var eventType: [UInt8] = []
    private var lastEventIDBuffer: [UInt8]
    private var blockRetry: Int?

    /// A decoder for a new connection; `lastEventID` carries the previous connection's over.
    init(lastEventID: String = "") {
        self.lastEventID = lastEventID
        lastEventIDBuffer = Array(lastEventID.utf8)
    }

    /// The most bytes one line or one event's data may hold before its end arrives: a server
    /// that never ends a line or a block must not make the reader hold everything it sends.
    static let maxEventSize = 16 << 20

    /// Whether the line or the event being gathered passed `maxEventSize`.
    var isOverlong: Bool { line.count > Self.maxEventSize || data.count > Self.maxEventSize }

    /// The failure for an overlong line or event (`isOverlong`); the stream is not reconnected.
    static func overlongError(url: String?) -> HTTPTransportError {
        HTTPTransportError(code: .responseTooLarge,
                           message: "An event of the stream passed \(maxEventSize) bytes without its end.", url: url)
    }

    /// The longest `id` kept, in bytes: a `Last-Event-ID` line of that much fits the 8 KiB that
    /// common servers take in one header line.
    static let maxEventIDLength = 4 << 10

    /// Whether an `id` value may become the `Last-Event-ID` header: no control character (NUL,
    /// as the standard says, and every other C0 one and DEL), at most `maxEventIDLength` bytes
    /// as sent (invalid UTF-8 replaced, which never makes it shorter).
    static func canBeSentBack(id value: ArraySlice<UInt8>) -> Bool {
        guard value.count <= maxEventIDLength, !value.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return false }
        return value.count * 3 <= maxEventIDLength || String(decoding: value, as: UTF8.self).utf8.count <= maxEventIDLength
    }

    /// The events that `chunk` completes, in order.
    mutating func decode(_ chunk: Data) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        chunk.withUnsafeBytes { buffer in
            var start = 0
            if followsCarriageReturn, let first = buffer.first {
                followsCarriageReturn = false
                if first == Byte.lineFeed { start = 1 }
            }
            var index = start
            while index < buffer.count {
                let byte = buffer[index]
                guard byte == Byte.carriageReturn || byte == Byte.lineFeed else {
                    index += 1
                    continue
                }
                line.append(contentsOf: buffer[start..<index])
                endLine(into: &events)
                index += 1
                if byte == Byte.carriageReturn {
                    if index == buffer.count {
                        followsCarriageReturn = true
                    } else if buffer[index] == Byte.lineFeed {
                        index += 1
                    }
                }
                start = index
            }
            line.append(contentsOf: buffer[start...])
        }
        return events
    }

    private mutating func endLine(into events: inout [ServerSentEvent]) {
        defer { line.removeAll(keepingCapacity: true) }
        var bytes = line[...]
        if atStreamStart {
            atStreamStart = false
            if bytes.starts(with: Byte.byteOrderMark) { bytes = bytes.dropFirst(Byte.byteOrderMark.count) }
        }
        if bytes.isEmpty {
            if let event = dispatch() { events.append(event) }
            return
        }
        guard bytes.first != Byte.colon else { return }  // a comment
        var name = bytes
        var value: ArraySlice<UInt8> = []
        if let colon = bytes.firstIndex(of: Byte.colon) {
            name = bytes[..<colon]
            value = bytes[(colon + 1)...]
            if value.first == Byte.space { value = value.dropFirst() }
        }
        process(field: name, value: value)
    }

    private mutating func process(field name: ArraySlice<UInt8>, value: ArraySlice<UInt8>) {
        if name.elementsEqual("data".utf8) {
            data.append(contentsOf: value)
            data.append(Byte.lineFeed)
        } else if name.elementsEqual("event".utf8) {
            eventType = Array(value)
        } else if name.elementsEqual("id".utf8) {
            if Self.canBeSentBack(id: value) { lastEventIDBuffer = Array(value) }
        } else if name.elementsEqual("retry".utf8) {
            if let milliseconds = Self.digits(value) {
                reconnectionTime = milliseconds
                blockRetry = milliseconds
            }
        }
    }

    /// The block's event (`nil` when it had no `data` line), and a fresh block.
    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = String(decoding: lastEventIDBuffer, as: UTF8.self)
        defer {
            data.removeAll(keepingCapacity: true)
            eventType.removeAll()
            blockRetry = nil
        }
        guard !data.isEmpty else { return nil }
        return ServerSentEvent(
            id: lastEventID.isEmpty ? nil : lastEventID,
            event: eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self),
            data: String(decoding: data.dropLast(), as: UTF8.self),
            retry: blockRetry
        )
    }

    /// A base-ten number of ASCII digits only (at least one; a value past `Int.max` is `Int.max`).
    private static func digits(_ text: ArraySlice<UInt8>) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        var number = 0
        for digit in text {
            let (times10, overflow1) = number.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return Int.max }
            number = sum
        }
        return number
    }

    private enum Byte {
        static let lineFeed: UInt8 = 0x0A
        static let carriageReturn: UInt8 = 0x0D
        static let colon = UInt8(ascii: ":")
        static let space = UInt8(ascii: " ")
        static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    }
}
