import FuzzSupport
import HTTPTransport

@_cdecl("FuzzServerSentEvents_main")
func main(_ argc: CInt, _ argv: FuzzArguments) -> CInt { runFuzzer(argc, argv, fuzzServerSentEvents) }

/// A `text/event-stream` body (all but the first byte, which picks the chunk sizes).
/// Invariants: the body in one chunk, byte by byte and in chunks of varying size gives the same
/// events, last event ID and reconnection time; these equal a plain reading of the whole text
/// by the HTML Standard's rules (below, written on Unicode scalars; the library also ignores an
/// id it could not send back as a header); no data holds CR, no event type holds CR or LF, no
/// id holds a control character.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerSentEvents(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let seed = Int(input.byte())
    let body = input.rest()

    let whole = Library.decode([body])
    let byteByByte = Library.decode(body.map { [$0] })
    var chunks: [[UInt8]] = []
    var start = 0
    while start < body.count {
        let end = min(body.count, start + 1 + (seed &* (chunks.count + 1)) % 13)
        chunks.append(Array(body[start..<end]))
        start = end
    }
    let varying = Library.decode(chunks)
    Invariant.check(whole.events == byteByByte.events, "byte by byte \(Invariant.show(byteByByte.events)), whole \(Invariant.show(whole.events))")
    Invariant.check(whole.events == varying.events, "in chunks \(Invariant.show(varying.events)), whole \(Invariant.show(whole.events))")
    Invariant.check(whole.lastEventID == byteByByte.lastEventID && whole.lastEventID == varying.lastEventID, "last event ID differs by chunking")
    Invariant.check(whole.retry == byteByByte.retry && whole.retry == varying.retry, "reconnection time differs by chunking")

    let expected = plainReading(String(decoding: body, as: UTF8.self))
    Invariant.check(whole.events == expected.events, "events \(Invariant.show(whole.events)), expected \(Invariant.show(expected.events))")
    Invariant.check(whole.lastEventID == expected.lastEventID, "last event ID \(Invariant.show(whole.lastEventID)), expected \(Invariant.show(expected.lastEventID))")
    Invariant.check(whole.retry == expected.retry, "retry \(Invariant.show(whole.retry)), expected \(Invariant.show(expected.retry))")
    for event in whole.events {
        Invariant.check(!event.data.unicodeScalars.contains("\r"), "CR in data \(Invariant.show(event.data))")
        Invariant.check(!event.event.unicodeScalars.contains { $0 == "\r" || $0 == "\n" }, "line end in event \(Invariant.show(event.event))")
        Invariant.check(!(event.id ?? "").unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "bad id \(Invariant.show(event.id))")
    }
    return 0
}

/// The standard's algorithm read literally, on the decoded text's scalars.
private func plainReading(_ text: String) -> (events: [Event], lastEventID: String, retry: Int?) {
    var scalars = Array(text.unicodeScalars)
    if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
    var lines: [[Unicode.Scalar]] = []
    var current: [Unicode.Scalar] = []
    var index = 0
    while index < scalars.count {
        let scalar = scalars[index]
        index += 1
        guard scalar == "\r" || scalar == "\n" else { current.append(scalar); continue }
        if scalar == "\r", index < scalars.count, scalars[index] == "\n" { index += 1 }
        lines.append(current)
        current = []
    }
    // `current` is an unterminated line: ignored, like any block it belongs to.
    var reading = PlainReading()
    for line in lines { reading.process(String(String.UnicodeScalarView(line))) }
    return (reading.events, reading.lastEventID, reading.retry)
}

private struct PlainReading {
    var events: [Event] = []
    var lastEventID = ""
    var retry: Int?
    var dataBuffer = ""
    var eventTypeBuffer = ""
    var lastEventIDBuffer = ""
    var blockRetry: Int?

    mutating func process(_ line: String) {
        if line.isEmpty { return dispatch() }
        // Scalars, not Characters: ":" followed by a combining mark is still a comment, and
        // String's == would take canonically equivalent spellings for a field name.
        if line.unicodeScalars.first == ":" { return }
        var name = line
        var value = ""
        if let colon = line.unicodeScalars.firstIndex(of: ":") {
            name = String(line.unicodeScalars[..<colon])
            value = String(line.unicodeScalars[line.unicodeScalars.index(after: colon)...])
            if value.unicodeScalars.first == " " { value = String(value.unicodeScalars.dropFirst()) }
        }
        let isDigits = !value.isEmpty && value.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }
        if name.unicodeScalars.elementsEqual("event".unicodeScalars) {
            eventTypeBuffer = value
        } else if name.unicodeScalars.elementsEqual("data".unicodeScalars) {
            dataBuffer += value + "\n"
        } else if name.unicodeScalars.elementsEqual("id".unicodeScalars), canBeSentBack(value) {
            lastEventIDBuffer = value
        } else if name.unicodeScalars.elementsEqual("retry".unicodeScalars), isDigits {
            let number = Int(value) ?? Int.max  // only digits: nil means too large
            retry = number
            blockRetry = number
        }
    }

    /// The library's rule for an id it may send back as `Last-Event-ID` (the standard ignores one
    /// holding NUL): no control character at all, and at most 4 KiB of UTF-8.
    func canBeSentBack(_ value: String) -> Bool {
        !value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } && value.utf8.count <= 4_096
    }

    mutating func dispatch() {
        lastEventID = lastEventIDBuffer
        defer { dataBuffer = ""; eventTypeBuffer = ""; blockRetry = nil }
        guard !dataBuffer.isEmpty else { return }
        events.append(Event(id: lastEventID.isEmpty ? nil : lastEventID, event: eventTypeBuffer.isEmpty ? "message" : eventTypeBuffer,
                            data: String(dataBuffer.unicodeScalars.dropLast()), retry: blockRetry))
    }
}
