import Foundation

/// Where a request goes, as the per-origin rules count it: scheme, host and port (the scheme's
/// default port when the URL names none), compared without regard to case. A host that names an
/// address has one spelling, as URL parsers read it (`127.1`, `2130706433`, `0x7f.1`,
/// `0177.0.0.1` and `[::ffff:7f00:1]` are all `127.0.0.1`; IPv6 in RFC 5952 text), and a host
/// name loses its final dot: each spelling reaches the same server, so none may pass the host
/// limits or the circuit breaker that another is held by.
struct Origin: Hashable, Sendable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = Self.canonical(host: url.host ?? "")
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    static func canonical(host: String) -> String {
        if let address = IPAddress.canonical(host: host) { return address }
        let name = host.lowercased()
        return name.count > 1 && name.hasSuffix(".") ? String(name.dropLast()) : name
    }

    /// `https://api.example.com:443`.
    var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost):\(port)"
    }
}
