/// Which addresses a session may connect to: a guard against server-side request forgery for
/// programs that fetch URLs their users supply (webhooks, link previews, importers).
///
/// The check runs on the address each connection is really opened to, after name resolution
/// (DNS, `resolveOverrides`) and for every redirect hop and both address families, so a host
/// name that resolves to an internal address, DNS rebinding and odd IP spellings (`127.1`,
/// `2130706433`, `[::ffff:127.0.0.1]`) are all caught. A refused connection fails the send
/// with `.addressNotAllowed` before a byte is sent.
///
/// ```swift
/// var configuration = Session.Configuration()
/// configuration.addressPolicy = .publicOnly
/// configuration.addressPolicy = .custom { address in address.hasPrefix("10.1.") || address == "192.0.2.10" }
/// ```
///
/// A policy other than `.any` cannot see where a proxy connects, so with a proxy (explicit, or
/// from the environment when `proxy` is `nil`) every send fails with `.addressNotAllowed`
/// instead of going unchecked; a host the proxy's `noProxy` list exempts is connected to
/// directly and checked. With `unixSocketPath`, the "address" is the socket's path: `.publicOnly`
/// refuses it (a local socket is not a public address) and `.custom` receives the path.
public struct AddressPolicy: Sendable {
    enum Rule: Sendable {
        case any
        case publicOnly
        case custom(@Sendable (String) -> Bool)
    }

    let rule: Rule

    /// Every address is allowed (the default).
    public static let any = AddressPolicy(rule: .any)

    /// Only globally reachable addresses: loopback, private, link-local, unique-local,
    /// carrier-grade NAT, multicast, broadcast, unspecified, documentation, benchmarking and
    /// reserved ranges (IPv4 and IPv6, IPv4-mapped and NAT64 forms included) and cloud metadata
    /// addresses (such as 169.254.169.254 and fd00:ec2::254) are refused.
    public static let publicOnly = AddressPolicy(rule: .publicOnly)

    /// Your own rule: `allows` gets each numeric address before it is connected to (`"203.0.113.7"`,
    /// `"2001:db8::1"`; an IPv4-mapped IPv6 address as the IPv4 address it reaches) and returns
    /// whether to connect. It runs on the sending thread, once per connection attempt.
    public static func custom(_ allows: @escaping @Sendable (String) -> Bool) -> AddressPolicy {
        AddressPolicy(rule: .custom(allows))
    }

    /// Whether connections are checked at all.
    var checksAddresses: Bool {
        if case .any = rule { return false }
        return true
    }

    /// The policy's name, for error messages.
    var name: String {
        switch rule {
        case .any: ".any"
        case .publicOnly: ".publicOnly"
        case .custom: ".custom"
        }
    }

    /// Why a connection to `peer` is refused, or `nil` when it is allowed.
    func refusal(of peer: PeerAddress) -> String? {
        switch (rule, peer) {
        case (.any, _):
            return nil
        case (.publicOnly, .ip(let address)):
            return address.specialRange.map { "\($0.rawValue) address" }
        case (.publicOnly, .unixSocket):
            return "local Unix socket, not a public address"
        case (.custom(let allows), let peer):
            return allows(peer.policyText) ? nil : "refused by the custom rule"
        }
    }
}

/// What a connection is opened to, as the address policy sees it.
enum PeerAddress: Sendable, CustomStringConvertible {
    case ip(IPAddress)
    case unixSocket(path: String)

    /// The text a `.custom` rule receives: an IPv4-mapped IPv6 address as the IPv4 address the
    /// connection reaches (so that a rule written for `"127.0.0.1"` also sees `::ffff:127.0.0.1`).
    var policyText: String {
        switch self {
        case .ip(let address):
            if address.family == .v6, address.high == 0, address.low >> 32 == 0xFFFF, let v4 = address.embeddedIPv4 {
                return v4.description
            }
            return address.description
        case .unixSocket(let path):
            return path
        }
    }

    var description: String {
        switch self {
        case .ip(let address): address.description
        case .unixSocket(let path): "the Unix socket \(path)"
        }
    }
}
