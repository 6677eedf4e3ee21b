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
