@testable import HTTPTransport

/// The library calls this target makes (a rename in the library is fixed here only).
enum Library {
    enum Kind: CaseIterable { case sha1, sha256, publicKey, debug, disable }

    /// Hex digits (with spaces and colons) as bytes.
    static func hexBytes(_ text: String) -> [UInt8]? { PinnedHostMatcher.hexBytes(text) }

    /// A SHA-256 SPKI pin in any accepted spelling, as padded base64.
    static func publicKeyBase64(_ text: String) -> String? { PinnedHostMatcher.publicKeyBase64(text) }

    /// What a host's trust policy holds.
    struct Policy {
        var sha1Pins: [[UInt8]]
        var sha256Pins: [[UInt8]]
        var publicKeyPins: [String]
        var debug: Bool
        var isStandard: Bool
    }

    /// The trust policy for `host` under these entries (pattern, kind, fingerprint text).
    static func policy(for host: String, entries: [(pattern: String, kind: Kind, text: String)]) -> Policy {
        let certificates = entries.map { entry -> TrustPolicyManager.Certificate in
            let fingerprint: TrustPolicyManager.Certificate.Fingerprint
            switch entry.kind {
            case .sha1: fingerprint = .sha1(fingerprint: entry.text)
            case .sha256: fingerprint = .sha256(fingerprint: entry.text)
            case .publicKey: fingerprint = .publicKey(fingerprint: entry.text)
            case .debug: fingerprint = .debug
            case .disable: fingerprint = .disable
            }
            return TrustPolicyManager.Certificate(host: entry.pattern, fingerprint: fingerprint)
        }
        let policy = PinnedHostMatcher(certificates: certificates).policy(for: host)
        return Policy(sha1Pins: policy.sha1Pins, sha256Pins: policy.sha256Pins, publicKeyPins: policy.publicKeyPins,
                      debug: policy.debug, isStandard: policy.isStandard)
    }

    /// Whether a single entry for `pattern` applies to `host`.
    static func applies(pattern: String, to host: String) -> Bool {
        policy(for: host, entries: [(pattern, .debug, "")]).debug
    }
}
