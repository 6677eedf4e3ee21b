import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif

/// Text → address → canonical text round-trips; the strict reader agrees with the C library's
/// `inet_pton`, and every address the lenient (URL host) reader takes, `inet_aton` reads alike.
@_cdecl("FuzzIPAddress_main")
func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzIPAddress)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIPAddress(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let text = String(decoding: input.rest(), as: UTF8.self)

    let strict = Library.strictAddress(text)
    if let strict {
        let again = Library.strictAddress(strict.canonical)
        Invariant.check(again?.bytes == strict.bytes, "canonical text \(strict.canonical) of \(Invariant.show(text)) reads back as \(Invariant.show(again))")
        Invariant.check(again?.canonical == strict.canonical, "canonical text is not canonical: \(strict.canonical)")
        Invariant.check(Library.hostAddress(strict.canonical)?.bytes == strict.bytes, "the host reader differs on \(strict.canonical)")
    }
    if !text.utf8.contains(0) {
        let unbracketed = text.hasPrefix("[") && text.hasSuffix("]") && text.utf8.count >= 2
            ? String(text.dropFirst().dropLast()) : text
        let reference = presentation(unbracketed)
        // Brackets belong to IPv6 only.
        let expected = text == unbracketed ? reference : reference.flatMap { $0.count == 16 ? $0 : nil }
        Invariant.check(strict?.bytes == expected,
                        "strict reading of \(Invariant.show(text)) is \(Invariant.show(strict?.bytes)), inet_pton says \(Invariant.show(expected))")
    }

    if let lenient = Library.hostAddress(text) {
        let again = Library.strictAddress(lenient.canonical)
        Invariant.check(again?.bytes == lenient.bytes, "canonical text \(lenient.canonical) of host \(Invariant.show(text)) does not read back")
        let withoutDot = text.hasSuffix(".") ? String(text.dropLast()) : text
        // WHATWG reads a bare `0x` part as 0; inet_aton (and curl) refuse it, so it is not compared.
        let hasBareHexPrefix = withoutDot.split(separator: ".").contains { $0.lowercased() == "0x" }
        if lenient.bytes.count == 4, !text.utf8.contains(0), !hasBareHexPrefix {
            Invariant.check(ascii(withoutDot) == lenient.bytes,
                            "host \(Invariant.show(text)) reads as \(lenient.canonical), inet_aton says \(Invariant.show(ascii(withoutDot)))")
        }
    }
    return 0
}

/// `inet_pton` for IPv4, then IPv6: the address's bytes, or nil.
private func presentation(_ text: String) -> [UInt8]? {
    var v4 = [UInt8](repeating: 0, count: 4)
    if inet_pton(AF_INET, text, &v4) == 1 { return v4 }
    var v6 = [UInt8](repeating: 0, count: 16)
    if inet_pton(AF_INET6, text, &v6) == 1 { return v6 }
    return nil
}

/// `inet_aton`'s reading of an IPv4 host, or nil.
private func ascii(_ text: String) -> [UInt8]? {
    var address = in_addr()
    guard inet_aton(text, &address) != 0 else { return nil }
    return withUnsafeBytes(of: address.s_addr) { Array($0) }
}
