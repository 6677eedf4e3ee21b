#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reference versions of the host rules the invariants speak of, written here independently of
/// the library so that a target does not check the library against itself.
public enum HostRules {
    /// A URL host as cookies and pins compare it: lower-case, without one trailing dot.
    public static func canonical(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// `host` is `domain` or lies below it (at a label boundary).
    public static func isAtOrBelow(_ host: String, _ domain: String) -> Bool {
        host == domain || host.hasSuffix("." + domain)
    }

    /// Whether any character is a C0 control other than HTAB, or DEL. (On the bytes: a tab
    /// followed by a combining mark is one `Character`, which `replacingOccurrences(of: "\t", …)`
    /// does not match.)
    public static func hasControlOtherThanTab(_ text: String) -> Bool {
        text.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }

    /// Whether the C library reads `text` as an IPv4 or IPv6 address (`inet_pton`).
    public static func isIPAddress(_ text: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }

    /// The address a host names, as the C library reads it: IPv4 in any `inet_aton` spelling
    /// (`127.1`, `0x7f.0.0.1`), IPv6 (brackets allowed); an IPv4-mapped IPv6 address as its IPv4
    /// address. `nil` for a name.
    public static func addressBytes(_ text: String) -> [UInt8]? {
        // Only address characters: the C functions would stop at a NUL, and inet_aton ignores
        // whatever follows white space.
        guard text.utf8.allSatisfy({ "0123456789abcdefABCDEFxX.:[]".utf8.contains($0) }) else { return nil }
        var text = text
        if text.hasPrefix("["), text.hasSuffix("]"), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if !text.contains(":"), inet_aton(text, &v4) != 0 {
            return withUnsafeBytes(of: v4.s_addr) { Array($0) }
        }
        var v6 = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        if v6.prefix(10).allSatisfy({ $0 == 0 }), v6[10] == 0xFF, v6[11] == 0xFF { return Array(v6.suffix(4)) }
        return v6
    }
}
