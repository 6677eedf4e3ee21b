/// The fuzzer's bytes, read front to back as the values a target needs. Every read succeeds
/// (with a zero, `false` or empty text once the bytes run out), so each input drives a target
/// to the end and the fuzzer may mutate any byte.
///
/// Texts are separated by the byte 0xFF, which never occurs in UTF-8: a seed reads as its
/// parts joined with 0xFF, and any other byte (invalid UTF-8 included) reaches the parser.
public struct FuzzInput {
    public static let separator: UInt8 = 0xFF

    private let bytes: [UInt8]
    private var position = 0

    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    }

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var isAtEnd: Bool { position >= bytes.count }

    /// The next byte, or 0 at the end.
    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func bool() -> Bool { byte() & 1 == 1 }

    /// A value in `0..<count` (`count` at least 1).
    public mutating func choice(_ count: Int) -> Int { Int(byte()) % max(1, count) }

    /// The next eight bytes as an integer (little-endian; missing bytes are 0).
    public mutating func int64() -> Int64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) { value |= UInt64(byte()) << UInt64(shift) }
        return Int64(bitPattern: value)
    }

    /// The bytes up to the next separator (which is consumed), or to the end.
    public mutating func textBytes() -> [UInt8] {
        guard position < bytes.count else { return [] }
        let end = bytes[position...].firstIndex(of: Self.separator) ?? bytes.endIndex
        defer { position = min(end + 1, bytes.count) }
        return Array(bytes[position..<end])
    }

    /// The bytes up to the next separator as text (invalid UTF-8 repaired).
    public mutating func text() -> String { String(decoding: textBytes(), as: UTF8.self) }

    /// Every remaining text.
    public mutating func texts() -> [String] {
        var result: [String] = []
        while !isAtEnd { result.append(text()) }
        return result
    }

    /// The rest of the bytes, separators included.
    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }
}
