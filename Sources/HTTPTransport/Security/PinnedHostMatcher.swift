import Foundation

/// What the TLS layer must check for one host, decided from the `Security` entries.
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

/// Finds the entries that apply to a host: the most specific matching pattern wins (an exact
/// host over its parent domains, a longer domain over a shorter one); entries with that same
/// pattern combine (several pins for rotation).
struct PinnedHostMatcher: Sendable {
    private let entries: [(pattern: String, fingerprint: TrustPolicyManager.Certificate.Fingerprint)]

    init(certificates: [TrustPolicyManager.Certificate]) {
        entries = certificates.map { (Self.normalize($0.host), $0.fingerprint) }
    }

    private static func normalize(_ host: String) -> String {
        var host = host.trimmingCharacters(in: .whitespaces).lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }

    /// How specific `pattern` is for `host`, or `nil` when it does not apply.
    static func specificity(of pattern: String, for host: String) -> Int? {
        guard !pattern.isEmpty else { return nil }
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
        return policy
    }

    /// Hex digits with optional spaces and colons, any case.
    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = text.filter { $0 != " " && $0 != ":" }
        guard digits.count % 2 == 0, !digits.isEmpty else { return nil }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    /// A SHA-256 SPKI pin in any accepted form, as base64.
    static func publicKeyBase64(_ text: String) -> String? {
        var value = text.trimmingCharacters(in: .whitespaces)
        if value.lowercased().hasPrefix("sha256//") { value = String(value.dropFirst(8)) }
        if let bytes = hexBytes(value), bytes.count == 32 { return Data(bytes).base64EncodedString() }
        if let data = Data(base64Encoded: value), data.count == 32 { return data.base64EncodedString() }
        return nil
    }
}
