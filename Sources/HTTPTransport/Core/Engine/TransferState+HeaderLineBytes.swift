import Foundation

/// Reading a response header line on its bytes, with no String, for the header callback: a
/// header's name, a decimal value, the status code of a status line.
extension TransferState {
    /// Whether the name before `colon` is `lowercasedName`, in any case.
    static func hasName(_ lowercasedName: StaticString, _ bytes: UnsafeRawBufferPointer, colon: Int) -> Bool {
        guard colon == lowercasedName.utf8CodeUnitCount else { return false }
        let expected = UnsafeRawBufferPointer(start: lowercasedName.utf8Start, count: colon)
        for index in 0..<colon where bytes[index] | 0x20 != expected[index] {  // "-" is 0x2D either way
            return false
        }
        return true
    }

    /// The decimal number in `start..<end` between optional spaces and tabs; `nil` for anything
    /// else (or more than 18 digits).
    static func decimal(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int64? {
        let text = bytes.assumingMemoryBound(to: UInt8.self)
        let digits = ReceivedHeaderBlock.trimmed(text, from: start, to: end)
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value: Int64 = 0
        for index in digits {
            let digit = Int64(text[index]) - 48
            guard digit >= 0, digit <= 9 else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// The status code of `HTTP/x nnn reason`: the digits after the first space(s).
    static func statusCode(_ bytes: UnsafeRawBufferPointer, end: Int) -> Int? {
        guard let base = bytes.baseAddress, let space = memchr(base, 0x20, end) else { return nil }
        var index = base.distance(to: UnsafeRawPointer(space))
        while index < end, bytes[index] == 0x20 { index += 1 }
        var code = 0, digits = 0
        while index < end, bytes[index] != 0x20 {
            let digit = Int(bytes[index]) - 48
            guard digit >= 0, digit <= 9, digits < 9 else { return nil }
            code = code * 10 + digit
            digits += 1
            index += 1
        }
        return digits > 0 ? code : nil
    }
}
