import CCurl
import Foundation
import Logging

/// TLS options of one transfer: private roots, client certificate, per-host verification
/// switch, and pins (public-key pins through libcurl, certificate-digest pins through the
/// handshake callback in the C target).
extension CurlEngine {
    func configureTLS(_ handle: EasyHandle, request: RawRequest, resources: TransferResources,
                              policy: HostTrustPolicy) throws {
        guard request.url.scheme?.lowercased() == "https" else { return }
        if let roots = security.trustedRootCertificates {
            try handle.set(CURLOPT_CAINFO, roots.path)
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
            let host = request.url.host ?? ""
            let first = disabledHostsWarned.withLock { $0.insert(host).inserted }
            if first {
                logger.warning("TLS certificate verification is disabled for \(host) by a .disable entry.")
            }
            try handle.set(CURLOPT_SSL_VERIFYPEER, false)
            try handle.set(CURLOPT_SSL_VERIFYHOST, 0)
            return
        }
        try handle.set(CURLOPT_SSL_VERIFYPEER, true)
        try handle.set(CURLOPT_SSL_VERIFYHOST, 2)
        if !policy.publicKeyPins.isEmpty {
            try handle.set(CURLOPT_PINNEDPUBLICKEY, policy.publicKeyPins.map { "sha256//\($0)" }.joined(separator: ";"))
        }
        if security.needsHandshakeCallback {
            try handle.set(CURLOPT_SSL_SESSIONID_CACHE, false)
        }
        if policy.hasCertificatePins || policy.debug || !policy.publicKeyPins.isEmpty {
            let check = resources.makePinCheck(policy: policy)
            try handle.check(ccurl_set_pin_check(handle.curl, check), CURLOPT_SSL_CTX_FUNCTION)
        }
    }

}
