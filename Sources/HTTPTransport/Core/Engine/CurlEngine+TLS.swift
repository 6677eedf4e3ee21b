import CCurl
import Foundation

/// The TLS checks of one transfer, decided from the session's `Security` for the host libcurl
/// will connect to.
///
/// Where each check happens (libcurl 7.88.1, OpenSSL backend):
/// - CA chain: OpenSSL, during the handshake (`CURLOPT_SSL_VERIFYPEER`), or inside the pin
///   callback, which replaces OpenSSL's chain verification and runs it first.
/// - Host name: libcurl, right after the handshake (`CURLOPT_SSL_VERIFYHOST`).
/// - `.publicKey` alone: libcurl, right after every handshake, resumed ones included
///   (`CURLOPT_PINNEDPUBLICKEY`, which is also part of libcurl's connection and TLS-session
///   reuse matching).
/// - `.sha1`/`.sha256` (and `.publicKey` next to them, so that any pin of the host matches):
///   the pin callback (`PinCheck`), during the handshake. It does not run on resumed TLS
///   sessions, so TLS session caching is off for such sessions (here and in the callback's SSL
///   context), and their handles share no TLS sessions (see `CurlShare`).
/// All of this ends before libcurl writes a request byte.
extension CurlEngine {
    /// The checks for a transfer to `url`, and the pin check it needs, if any.
    func tlsOption(for url: String, transfer: UInt64) throws(HTTPTransportError) -> (TLSOption, PinCheck?) {
        guard Self.isHTTPS(url) else { return (TLSOption(), nil) }
        // No entries: the standard policy, without looking at the host.
        guard !security.certificates.isEmpty else {
            return (TLSOption(cachesSessions: !security.needsHandshakeCallback), nil)
        }
        let host = try connectHost(of: url)
        let policy = security.matcher.policy(for: host)
        if let invalid = policy.invalidPin {
            throw HTTPTransportError(code: .pinningFailed,
                                     message: "The pins configured for \(host) cannot be used: \(invalid).", url: url)
        }
        var option = TLSOption()
        if policy.disableVerification {
            let first = disabledHostsWarned.withLock { $0.insert(host).inserted }
            if first { security.reporter.warnVerificationDisabled(host: host) }
            option.verifiesPeer = false
            option.verifiesHost = false
        }
        // `.debug` accepts whatever the pins say; certificate-digest pins take public-key pins
        // into the callback so that any one pin of the host matches.
        if !policy.publicKeyPins.isEmpty && !policy.debug && !policy.hasCertificatePins {
            option.pinnedPublicKeys = policy.publicKeyPins.map { "sha256//\($0)" }.joined(separator: ";")
        }
        let usesCallback = policy.hasCertificatePins || policy.debug || !policy.publicKeyPins.isEmpty
        option.cachesSessions = !(security.needsHandshakeCallback || usesCallback)
        guard usesCallback else { return (option, nil) }
        let check = PinCheck(policy: policy, host: host, reporter: security.reporter)
        option.pinCheck = TransferResource(transfer: transfer, pointer: UnsafeMutableRawPointer(check.pointer))
        return (option, check)
    }

    /// The host as libcurl will connect to it, from libcurl's own URL parser: it normalises
    /// what a policy lookup on the URL's text would miss (`127.1`, `2130706433` and `0x7f.0.0.1`
    /// are all `127.0.0.1`; case; IPv6 spellings), lower-cased, without brackets or a final dot.
    func connectHost(of url: String) throws(HTTPTransportError) -> String {
        guard let parsed = curl_url() else {
            throw HTTPTransportError(code: .other, message: "libcurl could not parse the URL (out of memory).", url: url)
        }
        defer { curl_url_cleanup(parsed) }
        var host: UnsafeMutablePointer<CChar>?
        guard curl_url_set(parsed, CURLUPART_URL, url, 0) == CURLUE_OK,
              curl_url_get(parsed, CURLUPART_HOST, &host, 0) == CURLUE_OK, let host
        else {
            throw HTTPTransportError(code: .invalidURL, message: "libcurl cannot find the host of '\(url)'.", url: url)
        }
        defer { curl_free(host) }
        return PinnedHostMatcher.normalize(String(cString: host))
    }
}
