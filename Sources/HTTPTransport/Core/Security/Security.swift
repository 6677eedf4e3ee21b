import Foundation
import Logging

/// The TLS policy of a `Session`: certificate pins per host, an optional private root bundle,
/// and an optional client certificate. Normal CA and host-name verification always apply,
/// except for hosts with an explicit `.disable` entry.
///
/// ```swift
/// let security = Security(certificates: [
///     TrustPolicyManager.Certificate(host: "api.example.com", fingerprint: .publicKey(fingerprint: "sha256//…")),
/// ])
/// let transport = HTTPTransport(security: security)
/// ```
public struct Security: Sendable {
    /// Pins and per-host verification switches.
    public let certificates: [TrustPolicyManager.Certificate]
    /// A PEM bundle that replaces the system roots (for a private CA).
    public let trustedRootCertificates: URL?
    /// A client certificate presented to servers that ask for one (mutual TLS).
    public let clientCertificate: ClientCertificate?

    /// No pins; full CA and host-name verification against the system roots.
    public static let noEvaluation = Security()

    /// The label of the logger that reports `.debug` fingerprints and `.disable` warnings
    /// unless a logger is given.
    public static let loggerLabel = "HTTPTransport.Security"

    /// A policy with the given pins and, optionally, a private root bundle, a client
    /// certificate, and the logger for `.debug` fingerprints and `.disable` warnings
    /// (default: a swift-log logger labelled `HTTPTransport.Security`).
    public init(
        certificates: [TrustPolicyManager.Certificate] = [],
        trustedRootCertificates: URL? = nil,
        clientCertificate: ClientCertificate? = nil,
        logger: Logger? = nil
    ) {
        self.certificates = certificates
        self.trustedRootCertificates = trustedRootCertificates
        self.clientCertificate = clientCertificate
        self.matcher = PinnedHostMatcher(certificates: certificates)
        self.reporter = SecurityReporter(logger: logger ?? Logger(label: Self.loggerLabel))
    }

    /// Where `.debug` fingerprints and `.disable` warnings are logged.
    public var logger: Logger { reporter.logger }

    let matcher: PinnedHostMatcher
    /// Lives as long as the policy (and so as long as the engine using it): handshake
    /// callbacks refer to it without retaining it.
    let reporter: SecurityReporter

    /// `true` when some host is pinned by whole-certificate digest (or `.debug`): such pins are
    /// checked by a handshake callback that TLS session resumption would skip.
    var needsHandshakeCallback: Bool {
        certificates.contains {
            switch $0.fingerprint {
            case .sha1, .sha256, .debug: return true
            case .publicKey, .disable: return false
            }
        }
    }
}

/// A client certificate for mutual TLS: PEM certificate and key (the key optionally encrypted),
/// or a PKCS#12 bundle.
public struct ClientCertificate: Sendable, Hashable {
    enum Kind: Hashable, Sendable {
        case pem(certificate: URL, key: URL)
        case pkcs12(URL)
    }

    let kind: Kind
    let password: String?

    /// A PEM certificate with its PEM private key (`password` decrypts an encrypted key).
    public static func pem(certificate: URL, key: URL, password: String? = nil) -> ClientCertificate {
        ClientCertificate(kind: .pem(certificate: certificate, key: key), password: password)
    }

    /// A PKCS#12 bundle holding certificate and key.
    public static func pkcs12(_ file: URL, password: String? = nil) -> ClientCertificate {
        ClientCertificate(kind: .pkcs12(file), password: password)
    }
}

/// Namespace of the seed's pinning types.
public enum TrustPolicyManager {
    /// A pin or verification switch for a host and its subdomains (`example.com` covers
    /// `api.example.com`, not `badexample.com`; `*.example.com` covers one label below).
    public struct Certificate: Sendable, Hashable {
        /// The host pattern.
        public let host: String
        /// What to check for it.
        public let fingerprint: Fingerprint

        /// A host entry.
        public init(host: String, fingerprint: Fingerprint) {
            self.host = host
            self.fingerprint = fingerprint
        }

        /// What a host entry checks.
        public enum Fingerprint: Sendable, Hashable {
            /// SHA-1 of the leaf certificate's DER, as hex (spaces and colons allowed, any case).
            case sha1(fingerprint: String)
            /// SHA-256 of the leaf certificate's DER, as hex.
            case sha256(fingerprint: String)
            /// SHA-256 of the leaf's SubjectPublicKeyInfo: hex, base64 or `sha256//base64`.
            case publicKey(fingerprint: String)
            /// Log the presented fingerprints and accept (CA verification still applies).
            case debug
            /// Turn certificate verification off for this host (logged once as a warning).
            case disable
        }
    }
}
