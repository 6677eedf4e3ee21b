import CCurl
import Foundation

/// Turns a libcurl result code into an `HTTPTransportError` with a message that says what
/// happened and, where it can, how to fix it.
enum CurlErrorMapping {
    static func error(for code: CURLcode, message: String?, url: String, host: String,
                      pinCheck: ccurl_pin_check?, publicKeyPinned: Bool) -> HTTPTransportError {
        let curlText = message ?? String(cString: curl_easy_strerror(code))
        let kind: HTTPTransportError.Code
        var text: String
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL where curlText.contains("HTTP/0.9"):
            kind = .badResponse
            text = "The server did not answer in HTTP: \(curlText)"
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            kind = .invalidURL
            text = "libcurl cannot use the URL: \(curlText)"
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            kind = .nameResolution
            text = "Could not resolve the host name '\(host)': \(curlText)"
        case CURLE_COULDNT_CONNECT:
            kind = .cannotConnect
            text = "Could not connect to \(host): \(curlText)"
        case CURLE_OPERATION_TIMEDOUT:
            kind = .timeout
            text = "The request timed out: \(curlText)"
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            kind = .pinningFailed
            text = "The public key of \(host) does not match the pinned one."
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CLIENTCERT:
            if let check = pinCheck, check.ran == 1, check.matched == 0, check.has_presented == 1, !publicKeyPinned {
                kind = .pinningFailed
                text = "The certificate of \(host) does not match the pinned fingerprints."
            } else {
                kind = .tlsFailure
                text = "TLS with \(host) failed: \(curlText)"
            }
        case CURLE_FILESIZE_EXCEEDED:
            kind = .responseTooLarge
            text = "The response is larger than the session allows: \(curlText)"
        case CURLE_TOO_MANY_REDIRECTS:
            kind = .tooManyRedirects
            text = curlText
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_WEIRD_SERVER_REPLY,
             CURLE_BAD_CONTENT_ENCODING, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3:
            kind = .badResponse
            text = "The server's response was cut off or malformed: \(curlText)"
        case CURLE_ABORTED_BY_CALLBACK:
            kind = .cancelled
            text = "The transfer was cancelled."
        case CURLE_READ_ERROR, CURLE_WRITE_ERROR, CURLE_FILE_COULDNT_READ_FILE:
            kind = .fileIO
            text = "Reading or writing the body failed: \(curlText)"
        default:
            kind = .other
            text = "libcurl error \(code.rawValue): \(curlText)"
        }
        if kind == .pinningFailed, let check = pinCheck, check.has_presented == 1 {
            text += " The server presented: " + presentedFingerprints(check)
                + ". Check the pins configured in Security for this host."
        }
        return HTTPTransportError(code: kind, message: text, url: url, curlCode: Int(code.rawValue), curlMessage: message)
    }

    static func presentedFingerprints(_ check: ccurl_pin_check) -> String {
        var copy = check
        let sha1 = withUnsafeBytes(of: &copy.presented_sha1) { Array($0) }
        let sha256 = withUnsafeBytes(of: &copy.presented_sha256) { Array($0) }
        let spki = withUnsafeBytes(of: &copy.presented_spki_sha256) { Array($0) }
        return "sha1 \(hex(sha1)), sha256 \(hex(sha256)), publicKey sha256//\(Data(spki).base64EncodedString())"
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02X", $0) }.joined()
    }
}
