import Foundation

/// What the TLS layer must check for one host, decided from the `Security` entries. When a
/// host has pins, the connection is accepted if any one of them matches (several pins allow
/// rotation); CA and host-name verification apply as well unless `disableVerification`.
struct HostTrustPolicy: Sendable, Hashable {
    var sha1Pins: [[UInt8]] = []
    var sha256Pins: [[UInt8]] = []
    /// SHA-256 SPKI pins as base64.
    var publicKeyPins: [String] = []
    var debug = false
    var disableVerification = false
    /// A pin that could not be parsed: the connection must fail closed.
    var invalidPin: String?

    var hasCertificatePins: Bool { !sha1Pins.isEmpty || !sha256Pins.isEmpty }
    var isStandard: Bool { self == HostTrustPolicy() }
}

/// Finds the entries that apply to a host (case-insensitive): `example.com` covers itself and
/// its subdomains at label boundaries (not `badexample.com`), `*.example.com` covers one label
/// below, an IP address only itself. The most specific matching pattern wins (the exact host,
/// then a `*.` wildcard, then the longest parent domain); entries with that same pattern
/// combine (several pins for rotation).
struct PinnedHostMatcher: Sendable {
    /// Public-key pins the handshake callback holds when a host mixes them with
    /// certificate-digest pins (see `CCURL_MAX_CALLBACK_SPKI_PINS`).
    static let maxCallbackPublicKeyPins = 16

    private let entries: [(pattern: String, fingerprint: TrustPolicyManager.Certificate.Fingerprint)]
    /// Entries whose host is not a host name or pattern (a URL, a port, a path, a blank): the
    /// session then fails closed, with this explanation, rather than pin nothing.
    let invalidEntries: [String]

    init(certificates: [TrustPolicyManager.Certificate]) {
        var entries: [(String, TrustPolicyManager.Certificate.Fingerprint)] = []
        var invalid: [String] = []
        for certificate in certificates {
            switch Self.pattern(from: certificate.host) {
            case .success(let pattern): entries.append((pattern, certificate.fingerprint))
            case .failure(let problem): invalid.append(problem.reason)
            }
        }
        self.entries = entries
        invalidEntries = invalid
    }

    /// Why an entry's host cannot be used.
    struct InvalidHost: Error {
        let reason: String
    }

    /// An entry's host as a pattern: `example.com` (itself and its subdomains), `*.example.com`
    /// (one label below), or an IP address (only itself, in its one spelling).
    static func pattern(from text: String) -> Result<String, InvalidHost> {
        let host = text.trimmingCharacters(in: .whitespaces)
        func invalid(_ why: String) -> Result<String, InvalidHost> {
            .failure(InvalidHost(reason: "the pin entry host \(text.debugDescription) \(why)"))
        }
        if host.isEmpty { return invalid("is empty") }
        if host.contains("://") { return invalid("is a URL: give only the host name, e.g. \"api.example.com\"") }
        if host.contains("/") { return invalid("contains a path: give only the host name") }
        if let address = IPAddress.canonical(host: host) { return .success(address) }
        if host.contains(":") { return invalid("contains a port: pins apply to every port of a host; give only the host name") }
        let name = normalize(host)
        let labels = name.hasPrefix("*.") ? name.dropFirst(2) : name[...]
        guard !labels.isEmpty, labels.utf8.allSatisfy(isHostNameByte), !labels.contains("..") else {
            return invalid("is not a host name (letters, digits, '-', '.', and '*.' only as the first label)")
        }
        return .success(name)
    }

    private static func isHostNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        default:
            return byte >= 0x80  // an internationalised name, compared as written
        }
    }

    /// Lower-cased, without surrounding spaces, a trailing dot, IPv6 brackets, or the leading
    /// dot of the `.example.com` spelling (which means the same as `example.com`); an address in
    /// its one spelling (see `IPAddress.canonical(host:)`).
    static func normalize(_ host: String) -> String {
        if let address = IPAddress.canonical(host: host.trimmingCharacters(in: .whitespaces)) { return address }
        var host = host.trimmingCharacters(in: .whitespaces).lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasPrefix(".") && !host.hasPrefix("..") { host.removeFirst() }
        return host
    }

    /// How specific `pattern` is for `host`, or `nil` when it does not apply.
    /// Both are normalized. An IP address matches only itself: no subdomains, no wildcards.
    static func specificity(of pattern: String, for host: String) -> Int? {
        guard !pattern.isEmpty, !host.isEmpty else { return nil }
        if IPAddress.isAddress(host: host) { return host == pattern ? pattern.count * 2 + 1 : nil }
        if pattern.hasPrefix("*.") {
            let parent = String(pattern.dropFirst(2))
            guard host.hasSuffix("." + parent) else { return nil }
            let label = host.dropLast(parent.count + 1)
            guard !label.isEmpty, !label.contains(".") else { return nil }
            return pattern.count * 2
        }
        if host == pattern { return pattern.count * 2 + 1 }
        if host.hasSuffix("." + pattern) { return pattern.count * 2 }
        return nil
    }

    func policy(for rawHost: String) -> HostTrustPolicy {
        guard invalidEntries.isEmpty else {
            var policy = HostTrustPolicy()
            policy.invalidPin = invalidEntries.joined(separator: "; ")
            return policy
        }
        let host = Self.normalize(rawHost)
        var best: Int?
        var matches: [TrustPolicyManager.Certificate.Fingerprint] = []
        for entry in entries {
            guard let score = Self.specificity(of: entry.pattern, for: host) else { continue }
            if let current = best, score < current { continue }
            if let current = best, score == current {
                matches.append(entry.fingerprint)
            } else {
                best = score
                matches = [entry.fingerprint]
            }
        }
        var policy = HostTrustPolicy()
        for fingerprint in matches {
            switch fingerprint {
            case .sha1(let text):
                if let bytes = Self.hexBytes(text), bytes.count == 20 { policy.sha1Pins.append(bytes) } else {
                    policy.invalidPin = "sha1 fingerprint '\(text)' is not 40 hex digits"
                }
            case .sha256(let text):
                if let bytes = Self.hexBytes(text), bytes.count == 32 { policy.sha256Pins.append(bytes) } else {
                    policy.invalidPin = "sha256 fingerprint '\(text)' is not 64 hex digits"
                }
            case .publicKey(let text):
                if let base64 = Self.publicKeyBase64(text) { policy.publicKeyPins.append(base64) } else {
                    policy.invalidPin = "publicKey fingerprint '\(text)' is not a SHA-256 in hex, base64 or sha256//base64"
                }
            case .debug: policy.debug = true
            case .disable: policy.disableVerification = true
            }
        }
        if policy.hasCertificatePins && policy.publicKeyPins.count > Self.maxCallbackPublicKeyPins {
            policy.invalidPin = "more than \(Self.maxCallbackPublicKeyPins) publicKey fingerprints together with sha1/sha256 ones"
        }
        return policy
    }

    /// Hex digits with optional spaces and colons, any case; anything else is invalid.
    static func hexBytes(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var high: UInt8?
        for character in text.utf8 {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: " "), UInt8(ascii: ":"): continue
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil, !bytes.isEmpty else { return nil }
        return bytes
    }

    /// A SHA-256 SPKI pin in any accepted form (hex, base64 with or without padding, or
    /// curl's `sha256//base64`), as padded base64.
    static func publicKeyBase64(_ text: String) -> String? {
        var value = text.trimmingCharacters(in: .whitespaces)
        if value.lowercased().hasPrefix("sha256//") { value = String(value.dropFirst(8)) }
        if let bytes = hexBytes(value), bytes.count == 32 { return Data(bytes).base64EncodedString() }
        guard !value.isEmpty, value.utf8.allSatisfy({ Self.isBase64($0) }) else { return nil }
        if value.utf8.count % 4 != 0 { value += String(repeating: "=", count: 4 - value.utf8.count % 4) }
        if let data = Data(base64Encoded: value), data.count == 32 { return data.base64EncodedString() }
        return nil
    }

    private static func isBase64(_ character: UInt8) -> Bool {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }
}
