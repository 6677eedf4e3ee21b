import CCurl
import Foundation

/// The certificate-pin check of one transfer: the C struct the handshake callback reads (in
/// `Sources/CCurl`), built from a host's `HostTrustPolicy`, and read back afterwards for the
/// error message or the `.debug` report. Owns the struct and the pin bytes it points at; lives
/// until the transfer is over.
final class PinCheck {
    let pointer: UnsafeMutablePointer<ccurl_pin_check>
    /// The host as libcurl connects to it (the one the policy was chosen for).
    let host: String
    private var pinStorage: [UnsafeMutableRawBufferPointer] = []

    /// A check for `host` (`reporter` receives `.debug` reports from inside the handshake, and
    /// must outlive the transfer: the session's `Security` keeps it).
    init(policy: HostTrustPolicy, host: String, reporter: SecurityReporter) {
        self.host = host
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: ccurl_pin_check())
        pointer.pointee.sha1_pins = store(policy.sha1Pins)
        pointer.pointee.count_sha1 = policy.sha1Pins.count
        pointer.pointee.sha256_pins = store(policy.sha256Pins)
        pointer.pointee.count_sha256 = policy.sha256Pins.count
        // Public-key pins alone are enforced by libcurl: the callback then only records what
        // the server presented, for the error message. `.debug` records and accepts too.
        pointer.pointee.debug_only = policy.debug || !policy.hasCertificatePins ? 1 : 0
        // With `.disable`, only the pins count (e.g. a pinned self-signed certificate).
        pointer.pointee.verify_chain = policy.disableVerification ? 0 : 1
        if policy.hasCertificatePins { storeCallbackPublicKeyPins(policy.publicKeyPins) }
        withUnsafeMutableBytes(of: &pointer.pointee.host) { buffer in
            let name = Array(host.utf8.prefix(buffer.count - 1))
            buffer.copyBytes(from: name)
            buffer[name.count] = 0
        }
        if policy.debug {
            pointer.pointee.report = Self.debugReportCallback
            pointer.pointee.report_context = Unmanaged.passUnretained(reporter).toOpaque()
        }
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
        for buffer in pinStorage { buffer.deallocate() }
    }

    /// The pin callback ran, the chain verified (or was not asked to), and no pin matched.
    var isPinMismatch: Bool {
        let check = pointer.pointee
        return check.ran == 1 && check.has_presented == 1 && check.chain_ok == 1 && check.matched == 0
            && check.debug_only == 0
    }

    /// What the server presented, when the callback recorded it.
    var presented: SecurityReporter.Presented? { Self.presented(pointer.pointee) }

    private static func presented(_ check: ccurl_pin_check) -> SecurityReporter.Presented? {
        guard check.has_presented == 1 else { return nil }
        return SecurityReporter.Presented(
            sha1: withUnsafeBytes(of: check.presented_sha1) { Array($0) },
            sha256: withUnsafeBytes(of: check.presented_sha256) { Array($0) },
            publicKeySHA256: withUnsafeBytes(of: check.presented_spki_sha256) { Array($0) })
    }

    /// With certificate-digest pins, public-key pins are checked by the callback too, so that
    /// any one pin of the host matches (the matcher limits how many there are).
    private func storeCallbackPublicKeyPins(_ pins: [String]) {
        let spki = pins.compactMap { Data(base64Encoded: $0) }.filter { $0.count == 32 }
        let count = min(spki.count, Int(CCURL_MAX_CALLBACK_SPKI_PINS))
        withUnsafeMutableBytes(of: &pointer.pointee.spki_pins) { buffer in
            for (index, pin) in spki.prefix(count).enumerated() {
                UnsafeMutableRawBufferPointer(rebasing: buffer[(index * 32)..<(index * 32 + 32)]).copyBytes(from: pin)
            }
        }
        pointer.pointee.count_spki = count
    }

    private func store(_ pins: [[UInt8]]) -> UnsafePointer<UInt8>? {
        let bytes = pins.flatMap { $0 }
        guard !bytes.isEmpty else { return nil }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        buffer.copyBytes(from: bytes)
        pinStorage.append(buffer)
        return UnsafePointer(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self))
    }

    /// Called inside the handshake for `.debug` hosts: `context` is an unretained `SecurityReporter`.
    private static let debugReportCallback: ccurl_pin_report_callback = { check, context in
        guard let check, let context else { return }
        let reporter = Unmanaged<SecurityReporter>.fromOpaque(context).takeUnretainedValue()
        let values = check.pointee
        guard let presented = presented(values) else { return }
        let host = withUnsafeBytes(of: values.host) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        reporter.reportDebug(host: host, presented: presented, chainVerified: values.chain_ok == 1)
    }
}
