import Foundation
import Logging

/// Logs what the TLS layer saw: the fingerprints a server presented (for `.debug` entries,
/// from inside the handshake) and the one-time warning for `.disable` entries.
final class SecurityReporter: Sendable {
    let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// The fingerprints of one presented leaf certificate, in the forms `Fingerprint` accepts.
    struct Presented: Sendable, Hashable {
        let sha1: [UInt8]
        let sha256: [UInt8]
        let publicKeySHA256: [UInt8]

        init(sha1: [UInt8], sha256: [UInt8], publicKeySHA256: [UInt8]) {
            self.sha1 = sha1
            self.sha256 = sha256
            self.publicKeySHA256 = publicKeySHA256
        }

        /// `sha1 <hex>, sha256 <hex>, publicKey <hex> (sha256//<base64>)`.
        var summary: String {
            "sha1 \(Self.hex(sha1)), sha256 \(Self.hex(sha256)), "
                + "publicKey \(Self.hex(publicKeySHA256)) (sha256//\(Self.base64(publicKeySHA256)))"
        }

        var metadata: Logger.Metadata {
            [
                "sha1": .string(Self.hex(sha1)),
                "sha1Base64": .string(Self.base64(sha1)),
                "sha256": .string(Self.hex(sha256)),
                "sha256Base64": .string(Self.base64(sha256)),
                "publicKeySHA256": .string(Self.hex(publicKeySHA256)),
                "publicKeySHA256Base64": .string(Self.base64(publicKeySHA256)),
            ]
        }

        static func hex(_ bytes: [UInt8]) -> String {
            let digits = Array("0123456789ABCDEF".utf8)
            var text: [UInt8] = []
            text.reserveCapacity(bytes.count * 2)
            for byte in bytes {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0F)])
            }
            return String(decoding: text, as: UTF8.self)
        }

        static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
    }

    /// Logs the fingerprints of a `.debug` host's leaf (called inside the handshake).
    func reportDebug(host: String, presented: Presented, chainVerified: Bool) {
        var metadata = presented.metadata
        metadata["host"] = .string(host)
        metadata["certificateVerified"] = .stringConvertible(chainVerified)
        let verdict = chainVerified
            ? "accepted (.debug)"
            : "rejected: the certificate chain does not verify (.debug does not turn CA verification off)"
        logger.notice("""
            TLS .debug for \(host): the server presented \(presented.summary); \(verdict). \
            Pin one with TrustPolicyManager.Certificate(host: "\(host)", fingerprint: \
            .sha256(fingerprint: "\(Self.Presented.hex(presented.sha256))")) or \
            .publicKey(fingerprint: "sha256//\(Self.Presented.base64(presented.publicKeySHA256))").
            """, metadata: metadata)
    }

    /// The one-time warning for a host whose verification a `.disable` entry turns off.
    func warnVerificationDisabled(host: String) {
        logger.warning(
            "TLS certificate verification is disabled for \(host) by a .disable entry: its connections are not authenticated.",
            metadata: ["host": .string(host)])
    }
}
