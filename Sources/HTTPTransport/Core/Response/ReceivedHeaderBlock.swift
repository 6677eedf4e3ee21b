import Foundation

/// A response's header lines as they arrived: each name and value (trimmed) kept as bytes in
/// one buffer, decoded into Strings only when asked for. Most sends never read most headers,
/// so a response costs two allocations here instead of two Strings a line.
struct ReceivedHeaderBlock: Sendable {
    /// Where one line's name and value are in `bytes`.
    struct Line: Sendable {
        var nameStart: UInt32
        var nameEnd: UInt32
        var valueStart: UInt32
        var valueEnd: UInt32
    }

    private(set) var bytes: [UInt8] = []
    private(set) var lines: [Line] = []
    /// `true` while every name is ASCII, so names compare byte by byte; otherwise lookups go
    /// through decoded Strings, exactly as for built headers.
    private(set) var asciiNames = true

    /// An empty block with room for a typical response's headers.
    static func reserved() -> ReceivedHeaderBlock {
        var block = ReceivedHeaderBlock()
        block.bytes.reserveCapacity(512)
        block.lines.reserveCapacity(16)
        return block
    }

    /// The lines of `raw` through `append` (or `appendContinuation` for an obs-fold line), one
    /// by one: the plain path of reading received headers (see `ReceivedHeaderLines`).
    static func appendingEachLine(of raw: ReceivedHeaderLines) -> ReceivedHeaderBlock {
        var block = ReceivedHeaderBlock.reserved()
        raw.withUnsafeBytes { bytes in
            let text = UnsafeRawBufferPointer(bytes)
            var start = 0
            while start < text.count {
                let end = text[start...].firstIndex(of: 0x0A) ?? text.count
                let line = UnsafeRawBufferPointer(rebasing: text[start..<end])
                if !line.isEmpty, line[0] == 0x20 || line[0] == 0x09 {
                    block.appendContinuation(line)
                } else if let colon = line.firstIndex(of: 0x3A) {
                    block.append(line: line, colon: colon)
                }
                start = end + 1
            }
        }
        return block
    }

    /// Adds `Name: value` (the line without its CRLF, split at `colon`), both trimmed of spaces
    /// and tabs. A block past 4 GiB takes no more lines (offsets are 32-bit).
    mutating func append(line: UnsafeRawBufferPointer, colon: Int) {
        let text = line.assumingMemoryBound(to: UInt8.self)
        let name = Self.trimmed(text, from: 0, to: colon)
        let value = Self.trimmed(text, from: colon + 1, to: text.count)
        guard bytes.count + text.count < Int(UInt32.max) else { return }
        // One copy from the name's start to the value's end (the colon between comes along).
        let start = bytes.count - name.lowerBound
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[name.lowerBound..<value.upperBound]))
        lines.append(Line(nameStart: UInt32(start + name.lowerBound), nameEnd: UInt32(start + name.upperBound),
                          valueStart: UInt32(start + value.lowerBound), valueEnd: UInt32(start + value.upperBound)))
        if asciiNames {
            var high: UInt8 = 0
            for index in name { high |= text[index] }
            asciiNames = high < 0x80
        }
    }

    /// An obs-fold continuation: `" "` and the trimmed text join the last line's value (which
    /// is the end of `bytes`). Ignored when there is no line yet.
    mutating func appendContinuation(_ line: UnsafeRawBufferPointer) {
        let text = line.assumingMemoryBound(to: UInt8.self)
        guard !lines.isEmpty, bytes.count + text.count + 1 < Int(UInt32.max) else { return }
        bytes.append(0x20)
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[Self.trimmed(text, from: 0, to: text.count)]))
        lines[lines.count - 1].valueEnd = UInt32(bytes.count)
    }

    /// The part of `start..<end` without surrounding spaces and tabs.
    static func trimmed(_ line: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Range<Int> {
        var lower = start, upper = end
        while lower < upper, line[lower] == 0x20 || line[lower] == 0x09 { lower += 1 }
        while upper > lower, line[upper - 1] == 0x20 || line[upper - 1] == 0x09 { upper -= 1 }
        return lower..<upper
    }

    // MARK: Reading

    /// Every line as a field (names and values decoded as UTF-8, invalid bytes repaired).
    var fields: [HTTPHeaders.Field] {
        bytes.withUnsafeBytes { buffer in
            lines.map { line in
                HTTPHeaders.Field(name: Self.string(buffer, line.nameStart, line.nameEnd),
                                  value: Self.string(buffer, line.valueStart, line.valueEnd))
            }
        }
    }

    /// The value of each line named `name` (ASCII case-insensitively), in order, up to `limit`.
    func values(named name: String, limit: Int = .max) -> [String] {
        guard asciiNames else {
            return Array(fields.lazy.filter { $0.name.caseInsensitiveEquals(name) }.prefix(limit).map(\.value))
        }
        var name = name
        return name.withUTF8 { wanted in
            bytes.withUnsafeBytes { buffer in
                var found: [String] = []
                for line in lines where found.count < limit && Self.nameEquals(buffer, line, wanted) {
                    found.append(Self.string(buffer, line.valueStart, line.valueEnd))
                }
                return found
            }
        }
    }

    /// Whether a line is named `name`.
    func contains(_ name: String) -> Bool {
        guard asciiNames else { return fields.contains { $0.name.caseInsensitiveEquals(name) } }
        var name = name
        return name.withUTF8 { wanted in
            bytes.withUnsafeBytes { buffer in lines.contains { Self.nameEquals(buffer, $0, wanted) } }
        }
    }

    private static func nameEquals(_ buffer: UnsafeRawBufferPointer, _ line: Line, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = Int(line.nameStart), count = Int(line.nameEnd) - start
        guard count == wanted.count else { return false }
        for index in 0..<count {
            let x = buffer[start + index], y = wanted[index]
            if x == y { continue }
            let lx = (x >= 65 && x <= 90) ? x + 32 : x
            let ly = (y >= 65 && y <= 90) ? y + 32 : y
            if lx != ly { return false }
        }
        return true
    }

    private static func string(_ buffer: UnsafeRawBufferPointer, _ start: UInt32, _ end: UInt32) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: buffer[Int(start)..<Int(end)]), as: UTF8.self)
    }
}

/// A response's header lines as the header callback received them: each line, without its
/// CR LF and ended with `"\n"`, in one buffer (`ccurl_header_lines`, filled in C), nothing else
/// done per line; read (split at the colon, trimmed, names compared) only when asked.
///
/// This is the fast path of received headers: most sends never read most headers, and many
/// never read any, so a line costs one copy and a read scans the buffer. Reads give exactly
/// what the plain path gives, the block of `ReceivedHeaderBlock.appendingEachLine(of:)` (lines
/// split and trimmed one by one into an index), which reads fall back to when a line is an
/// obs-fold continuation (a value that is not one run of the bytes).
struct ReceivedHeaderLines: Sendable {
    /// The bytes, every line and its `"\n"`, in one allocation, never changed once copied in.
    private let bytes: [UInt8]
    /// Whether a line starts with a space or a tab (an obs-fold continuation).
    private(set) var hasFold = false

    /// A copy of `bytes`, lines each ended with `"\n"`.
    init(copying bytes: UnsafeRawBufferPointer, hasFold: Bool) {
        self.bytes = [UInt8](bytes.assumingMemoryBound(to: UInt8.self))
        self.hasFold = hasFold && !bytes.isEmpty
    }

    /// Runs `body` on the bytes.
    func withUnsafeBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        bytes.withUnsafeBufferPointer(body)
    }

    /// The plain path's block.
    var compacted: ReceivedHeaderBlock { .appendingEachLine(of: self) }

    // MARK: Reading

    /// The number of fields.
    var count: Int {
        if hasFold { return compacted.lines.count }
        var count = 0
        forEachField { _, _, _ in count += 1; return true }
        return count
    }

    /// Every field (names and values decoded as UTF-8, invalid bytes repaired).
    var fields: [HTTPHeaders.Field] {
        if hasFold { return compacted.fields }
        var fields: [HTTPHeaders.Field] = []
        forEachField { text, name, value in
            fields.append(HTTPHeaders.Field(name: Self.string(text, name), value: Self.string(text, value)))
            return true
        }
        return fields
    }

    /// The value of each field named `name` (ASCII case-insensitively), in order, up to `limit`.
    func values(named name: String, limit: Int = .max) -> [String] {
        if hasFold { return compacted.values(named: name, limit: limit) }
        var found: [String] = []
        var name = name
        name.withUTF8 { wanted in
            forEachField { text, line, value in
                if found.count < limit, Self.nameEquals(text, line, wanted) { found.append(Self.string(text, value)) }
                return found.count < limit
            }
        }
        return found
    }

    /// Whether a field is named `name`.
    func contains(_ name: String) -> Bool {
        if hasFold { return compacted.contains(name) }
        var found = false
        var name = name
        name.withUTF8 { wanted in
            forEachField { text, line, _ in
                found = Self.nameEquals(text, line, wanted)
                return !found
            }
        }
        return found
    }

    /// Calls `body` with each line that has a colon: the name and the value in `text`, both
    /// trimmed of spaces and tabs, in order, while `body` returns `true`. (Not for a block with
    /// an obs-fold line.)
    private func forEachField(_ body: (UnsafeBufferPointer<UInt8>, Range<Int>, Range<Int>) -> Bool) {
        withUnsafeBytes { text in
            guard let base = text.baseAddress else { return }
            var start = 0
            while start < text.count {
                // Every line ends with "\n": each search stays in the buffer.
                let end = Self.offset(of: 0x0A, in: base, from: start, to: text.count) ?? text.count
                if let colon = Self.offset(of: 0x3A, in: base, from: start, to: end),  // ":"
                   !body(text, ReceivedHeaderBlock.trimmed(text, from: start, to: colon),
                         ReceivedHeaderBlock.trimmed(text, from: colon + 1, to: end)) {
                    return
                }
                start = end + 1
            }
        }
    }

    /// Whether the name at `range` is `wanted`: byte by byte with ASCII letters folded, or for a
    /// name with other bytes, decoded first (invalid bytes repaired), as the plain path compares.
    private static func nameEquals(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>,
                                   _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        var high: UInt8 = 0
        for index in range { high |= text[index] }
        guard high < 0x80 else { return string(text, range).caseInsensitiveEquals(String(decoding: wanted, as: UTF8.self)) }
        guard range.count == wanted.count else { return false }
        for (index, y) in zip(range, wanted) {
            let x = text[index]
            if x == y { continue }
            let lx = (x >= 65 && x <= 90) ? x + 32 : x
            let ly = (y >= 65 && y <= 90) ? y + 32 : y
            if lx != ly { return false }
        }
        return true
    }

    private static func string(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: text[range]), as: UTF8.self)
    }

    /// The offset of `byte` in `start..<end` from `base`, by `memchr`.
    private static func offset(of byte: UInt8, in base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int? {
        guard start < end, let found = memchr(base + start, Int32(byte), end - start) else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }
}
