import Foundation
import FuzzSupport

@_cdecl("FuzzPins_main")
func main(_ argc: CInt, _ argv: FuzzArguments) -> CInt { runFuzzer(argc, argv, fuzzPins) }

/// Pin strings and host patterns. Input: a host, then entries (pattern, kind byte, fingerprint
/// text). Invariants: hex reads back from its own hex; a public-key pin is 32 bytes of base64
/// and reading it again changes nothing; a pattern applies only to the host itself or hosts
/// below it (one label below for `*.`), and to an IP address only when it is that address;
/// certificate pins in a policy have their digest's length.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPins(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let host = input.text()
    var entries: [(pattern: String, kind: Library.Kind, text: String)] = []
    while !input.isAtEnd, entries.count < 8 {
        let pattern = input.text()
        let kind = Library.Kind.allCases[input.choice(Library.Kind.allCases.count)]
        entries.append((pattern, kind, input.text()))
    }

    for text in [host] + entries.map(\.text) {
        checkHex(text)
        checkPublicKey(text)
    }
    for entry in entries where Library.applies(pattern: entry.pattern, to: host) {
        checkApplies(pattern: entry.pattern, host: host)
    }
    let policy = Library.policy(for: host, entries: entries)
    Invariant.check(policy.sha1Pins.allSatisfy { $0.count == 20 } && policy.sha256Pins.allSatisfy { $0.count == 32 },
                    "a certificate pin of the wrong length")
    Invariant.check(policy.publicKeyPins.allSatisfy { Data(base64Encoded: $0)?.count == 32 }, "a public-key pin that is not 32 bytes")
    if entries.isEmpty { Invariant.check(policy.isStandard, "a policy without entries") }
    return 0
}

private func checkHex(_ text: String) {
    guard let bytes = Library.hexBytes(text) else { return }
    let digits = text.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: ":") }
    Invariant.check(digits.count == bytes.count * 2, "\(bytes.count) bytes from \(digits.count) hex digits in \(Invariant.show(text))")
    let hex = bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
    Invariant.check(Library.hexBytes(hex) == bytes && Library.hexBytes(hex.lowercased()) == bytes,
                    "\(hex) does not read back as \(Invariant.show(text)) did")
}

private func checkPublicKey(_ text: String) {
    guard let base64 = Library.publicKeyBase64(text) else { return }
    Invariant.check(Data(base64Encoded: base64)?.count == 32, "public-key pin \(Invariant.show(base64)) from \(Invariant.show(text))")
    Invariant.check(Library.publicKeyBase64(base64) == base64, "public-key pin \(Invariant.show(base64)) does not read as itself")
    Invariant.check(Library.publicKeyBase64("sha256//" + base64) == base64, "sha256//\(base64) does not read as \(base64)")
}

/// The host rules, stated plainly: lower case, no surrounding spaces, one trailing dot, IPv6
/// brackets or a `.example.com` leading dot.
private func plain(_ text: String) -> String {
    var text = HostRules.canonical(text.trimmingCharacters(in: .whitespaces))
    if text.hasPrefix("["), text.hasSuffix("]"), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
    if text.hasPrefix("."), !text.hasPrefix("..") { text.removeFirst() }
    return text
}

private func checkApplies(pattern rawPattern: String, host rawHost: String) {
    let pattern = plain(rawPattern), host = plain(rawHost)
    let shown = "pattern \(Invariant.show(rawPattern)) applies to host \(Invariant.show(rawHost))"
    Invariant.check(!pattern.isEmpty && !host.isEmpty, shown)
    if let address = HostRules.addressBytes(host) {
        // Any spelling of the same address (pins follow the address libcurl connects to).
        if let patternAddress = HostRules.addressBytes(pattern) {
            Invariant.check(patternAddress == address, "\(shown), an IP address it is not")
        } else {
            // A spelling the C library does not read (WHATWG's `0x`) may still name an address.
            Invariant.check(pattern.allSatisfy { "0123456789abcdefx.:".contains($0) }, "\(shown), an IP address it is not")
        }
    } else if pattern.hasPrefix("*.") {
        let parent = String(pattern.dropFirst(2))
        Invariant.check(host.hasSuffix("." + parent) && !host.dropLast(parent.count + 1).contains("."),
                        "\(shown), not one label below")
    } else {
        Invariant.check(HostRules.isAtOrBelow(host, pattern), "\(shown), which is neither it nor below it")
    }
}
