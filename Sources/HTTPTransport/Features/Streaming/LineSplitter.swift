import Foundation

/// Splits a byte stream into UTF-8 lines: on LF, a CR right before it dropped, the last line
/// given even without LF, no empty line after a final LF (invalid UTF-8 becomes U+FFFD).
struct LineSplitter {
    /// The longest line held while its end has not arrived: a server sending bytes without an LF
    /// must not make the reader hold them all.
    static let maxLineLength = 64 << 20

    private var bytes: [UInt8] = []
    /// Where the next line starts in `bytes`.
    private var start = 0
    /// Where the search for the next LF goes on (the bytes before it hold none).
    private var scanned = 0

    /// Adds the next bytes of the stream.
    mutating func append(_ data: Data) {
        if start > 0, start >= bytes.count / 2 {
            bytes.removeFirst(start)
            scanned -= start
            start = 0
        }
        bytes.append(contentsOf: data)
    }

    /// The next complete line, if one is there.
    mutating func nextLine() -> String? {
        guard let newline = bytes[scanned...].firstIndex(of: 0x0A) else {
            scanned = bytes.count
            return nil
        }
        let line = text(start..<newline, dropsCR: true)
        start = newline + 1
        scanned = start
        return line
    }

    /// Whether the line being gathered passed `maxLineLength` (after `nextLine()` found no LF).
    var isOverlong: Bool { bytes.count - start > Self.maxLineLength }

    /// The last line, which had no LF, once the stream ended (nil when nothing is left).
    mutating func finish() -> String? {
        guard start < bytes.count else { return nil }
        let line = text(start..<bytes.count, dropsCR: false)
        bytes.removeAll()
        start = 0
        scanned = 0
        return line
    }

    private func text(_ range: Range<Int>, dropsCR: Bool) -> String {
        var end = range.upperBound
        if dropsCR, end > range.lowerBound, bytes[end - 1] == 0x0D { end -= 1 }
        return String(decoding: bytes[range.lowerBound..<end], as: UTF8.self)
    }
}
