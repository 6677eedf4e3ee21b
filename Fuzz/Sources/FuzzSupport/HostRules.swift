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

    /// Whether any character is a C0 control (HTAB included) or DEL.
    public static func hasControl(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }

    /// Whether the C library reads `text` as an IPv4 or IPv6 address (`inet_pton`).
    public static func isIPAddress(_ text: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }
}
