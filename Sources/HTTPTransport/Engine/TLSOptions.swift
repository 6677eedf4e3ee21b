import CCurl
import Foundation
import Logging

/// TLS options of one transfer: private roots, client certificate, per-host verification
/// switch, and pins (public-key pins through libcurl, certificate-digest pins through the
/// handshake callback in the C target).
///
/// Where each check happens (libcurl 7.88.1, OpenSSL backend):
/// - CA chain: OpenSSL, during the handshake (`CURLOPT_SSL_VERIFYPEER`), or inside the pin
///   callback, which replaces OpenSSL's chain verification and runs it first.
/// - Host name: libcurl, right after the handshake (`CURLOPT_SSL_VERIFYHOST`).
/// - `.publicKey` alone: libcurl, right after every handshake, resumed ones included
///   (`CURLOPT_PINNEDPUBLICKEY`, which is also part of libcurl's connection and TLS-session
///   reuse matching).
/// - `.sha1`/`.sha256` (and `.publicKey` next to them, so that any pin of the host matches):
///   the pin callback, during the handshake. It does not run on resumed TLS sessions, so TLS
///   session caching is off for such sessions (here and in the callback's SSL context), and the
///   engine keeps their handles, connections and TLS sessions to the session itself.
/// All of this ends before libcurl writes a request byte.
extension CurlEngine {
    func configureTLS(_ handle: EasyHandle, request: RawRequest, resources: TransferResources,
                      policy: HostTrustPolicy) throws {
        guard Self.isHTTPS(request.url.absoluteString) else { return }
        let host = request.url.host ?? ""
        if let roots = security.trustedRootCertificates {
            try handle.set(CURLOPT_CAINFO, roots.path)
            // Debian's libcurl also trusts its default CA directory (/etc/ssl/certs): the bundle
            // replaces the system roots, so that directory is switched off.
            try handle.check(ccurl_setopt_string(handle.curl, CURLOPT_CAPATH, nil), CURLOPT_CAPATH)
        }
        if let client = security.clientCertificate {
            switch client.kind {
            case .pem(let certificate, let key):
                try handle.set(CURLOPT_SSLCERT, certificate.path)
                try handle.set(CURLOPT_SSLCERTTYPE, "PEM")
                try handle.set(CURLOPT_SSLKEY, key.path)
                try handle.set(CURLOPT_SSLKEYTYPE, "PEM")
            case .pkcs12(let bundle):
                try handle.set(CURLOPT_SSLCERT, bundle.path)
                try handle.set(CURLOPT_SSLCERTTYPE, "P12")
            }
            if let password = client.password { try handle.set(CURLOPT_KEYPASSWD, password) }
        }

        if policy.disableVerification {
            let first = disabledHostsWarned.withLock { $0.insert(PinnedHostMatcher.normalize(host)).inserted }
            if first { security.reporter.warnVerificationDisabled(host: host) }
            try handle.set(CURLOPT_SSL_VERIFYPEER, false)
            try handle.set(CURLOPT_SSL_VERIFYHOST, 0)
        } else {
            try handle.set(CURLOPT_SSL_VERIFYPEER, true)
            try handle.set(CURLOPT_SSL_VERIFYHOST, 2)
        }

        // `.debug` accepts whatever the pins say; certificate-digest pins take public-key pins
        // into the callback so that any one pin of the host matches.
        if !policy.publicKeyPins.isEmpty && !policy.debug && !policy.hasCertificatePins {
            try handle.set(CURLOPT_PINNEDPUBLICKEY, policy.publicKeyPins.map { "sha256//\($0)" }.joined(separator: ";"))
        }
        let usesCallback = policy.hasCertificatePins || policy.debug || !policy.publicKeyPins.isEmpty
        if security.needsHandshakeCallback || usesCallback {
            try handle.set(CURLOPT_SSL_SESSIONID_CACHE, false)
        }
        guard usesCallback else { return }

        let check = resources.makePinCheck(policy: policy)
        // Public-key pins alone are enforced by libcurl: the callback then only records what
        // the server presented, for the error message. `.debug` records and accepts too.
        check.pointee.debug_only = policy.debug || !policy.hasCertificatePins ? 1 : 0
        // With `.disable`, only the pins count (e.g. a pinned self-signed certificate).
        check.pointee.verify_chain = policy.disableVerification ? 0 : 1
        if policy.hasCertificatePins {
            let spki = policy.publicKeyPins.compactMap { Data(base64Encoded: $0) }.filter { $0.count == 32 }
            let count = min(spki.count, PinnedHostMatcher.maxCallbackPublicKeyPins, Int(CCURL_MAX_CALLBACK_SPKI_PINS))
            withUnsafeMutableBytes(of: &check.pointee.spki_pins) { buffer in
                for (index, pin) in spki.prefix(count).enumerated() {
                    UnsafeMutableRawBufferPointer(rebasing: buffer[(index * 32)..<(index * 32 + 32)]).copyBytes(from: pin)
                }
            }
            check.pointee.count_spki = count
        }
        withUnsafeMutableBytes(of: &check.pointee.host) { buffer in
            let name = Array(host.utf8.prefix(buffer.count - 1))
            buffer.copyBytes(from: name)
            buffer[name.count] = 0
        }
        if policy.debug {
            check.pointee.report = SecurityReporter.debugReportCallback
            check.pointee.report_context = Unmanaged.passUnretained(security.reporter).toOpaque()
        }
        try handle.check(ccurl_set_pin_check(handle.curl, check), CURLOPT_SSL_CTX_FUNCTION)
    }
}
