import CCurl
import Foundation

/// Turns a libcurl result code into an `HTTPTransportError` with a message that says what
/// happened and, where it can, how to fix it.
enum CurlErrorMapping {
    /// The one error a failed transfer ends with, from the explanation that knows most to the
    /// one that knows least:
    /// 1. what the transfer recorded itself (`TransferState.storedError`: a cancellation, a body
    ///    over its limit, a download that could not be written, a stream's time-out…). It is why
    ///    libcurl stopped, and libcurl then knows only that a callback aborted or a write failed.
    /// 2. what the session's connection options explain (`ConnectionOptions.failure`): a code
    ///    means more with the configuration known (a refused connect under an address policy, a
    ///    proxy's refusal of a tunnel, a stall, a missing Unix socket, an h2c server).
    /// 3. libcurl's code and message alone, which always give an answer.
    static func failure(of transfer: CurlTransfer, code: CURLcode, request: RawRequest,
                        connectionOptions: ConnectionOptions) -> HTTPTransportError {
        let state = transfer.state
        if let recorded = state.storedError { return recorded }
        if code == CURLE_OUT_OF_MEMORY, state.pacedSink?.isPaused == true {
            // libcurl holds what arrives while a transfer is paused, up to 64 MiB, then fails
            // "Out of memory": the body outgrew what may be held, not the process its memory.
            return HTTPTransportError(
                code: .responseTooLarge,
                message: "The response body grew past the 64 MiB libcurl holds while a transfer is paused (\(transfer.handle.errorMessage ?? "out of memory")).",
                url: transfer.url, curlCode: Int(code.rawValue), curlMessage: transfer.handle.errorMessage)
        }
        if let explained = connectionOptions.failure(code: code, handle: transfer.handle,
                                                     context: transfer.handle.connectionContext,
                                                     request: request, url: transfer.url) {
            return explained
        }
        return error(for: code, message: transfer.handle.errorMessage, url: transfer.url,
                     host: state.pinCheck?.host ?? request.url.host ?? "", pinCheck: state.pinCheck)
    }

    /// The error for libcurl's `code` and error-buffer `message` alone.
    static func error(for code: CURLcode, message: String?, url: String, host: String,
                      pinCheck: PinCheck?) -> HTTPTransportError {
        let curlText = message ?? String(cString: curl_easy_strerror(code))
        var (kind, text) = tlsFailure(code, curlText, host: host, pinCheck: pinCheck)
            ?? connectionFailure(code, curlText, host: host)
            ?? transferFailure(code, curlText)
        if kind == .pinningFailed, let presented = pinCheck?.presented {
            text += " The server presented: " + presented.summary + ". Check the pins configured in Security for this host."
        }
        return HTTPTransportError(code: kind, message: text, url: url, curlCode: Int(code.rawValue), curlMessage: message)
    }

    private typealias Mapped = (HTTPTransportError.Code, String)

    /// Name resolution, connecting, time-outs and URLs libcurl refuses.
    private static func connectionFailure(_ code: CURLcode, _ curlText: String, host: String) -> Mapped? {
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL where curlText.contains("HTTP/0.9"):
            return (.badResponse, "The server did not answer in HTTP: \(curlText)")
        case CURLE_UNSUPPORTED_PROTOCOL where curlText.contains("in response") || curlText.contains("HTTP response"):
            // libcurl 7.88 reports a status line it refuses (a code of four digits or below
            // 100, an unknown HTTP version) with the code it uses for unsupported URL schemes.
            return (.badResponse, "The server's status line is not valid HTTP: \(curlText)")
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return (.invalidURL, "libcurl cannot use the URL: \(curlText)")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return (.nameResolution, "Could not resolve the host name '\(host)': \(curlText)")
        case CURLE_COULDNT_CONNECT:
            return (.cannotConnect, "Could not connect to \(host): \(curlText)")
        case CURLE_OPERATION_TIMEDOUT:
            return (.timeout, "The request timed out: \(curlText)")
        default:
            return nil
        }
    }

    /// Certificates, pins, client certificates and the handshake.
    private static func tlsFailure(_ code: CURLcode, _ curlText: String, host: String, pinCheck: PinCheck?) -> Mapped? {
        let pinMismatch: Mapped = (.pinningFailed,
            "The certificate of \(host) does not match the pinned fingerprints; the connection was closed before the request was sent.")
        switch code {
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return (.pinningFailed,
                    "The public key of \(host) does not match the pinned one; the connection was closed before the request was sent.")
        case CURLE_PEER_FAILED_VERIFICATION:
            if pinCheck?.isPinMismatch == true { return pinMismatch }
            var text = "The certificate of \(host) could not be verified: \(curlText)."
            if curlText.contains("local issuer") || curlText.contains("self-signed certificate in certificate chain") {
                text += " If the server uses a private CA, pass its PEM bundle as Security(trustedRootCertificates:)."
            }
            return (.tlsFailure, text)
        case CURLE_SSL_CACERT_BADFILE:
            return (.tlsFailure, "The trusted root certificates could not be read: \(curlText)")
        case CURLE_SSL_CERTPROBLEM:
            return (.tlsFailure, "The client certificate or its key could not be used (check the files and the password): \(curlText)")
        case CURLE_SSL_CLIENTCERT:
            return (.tlsFailure, "\(host) requires a client certificate (Security(clientCertificate:)) or rejected the one sent: \(curlText)")
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_SHUTDOWN_FAILED,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_INITFAILED:
            if pinCheck?.isPinMismatch == true { return pinMismatch }
            return (.tlsFailure, "TLS with \(host) failed: \(curlText)")
        case CURLE_RECV_ERROR where isTLSAlert(curlText), CURLE_SEND_ERROR where isTLSAlert(curlText):
            // TLS 1.3 ends the client's handshake before the server has checked the client
            // certificate: its refusal arrives as an alert on the first read or write.
            return (.tlsFailure, curlText.lowercased().contains("certificate required")
                ? "\(host) requires a client certificate (Security(clientCertificate:)): \(curlText)"
                : "\(host) ended the TLS connection with an alert: \(curlText)")
        default:
            return nil
        }
    }

    /// What went wrong once the exchange was under way.
    private static func transferFailure(_ code: CURLcode, _ curlText: String) -> Mapped {
        switch code {
        case CURLE_FILESIZE_EXCEEDED:
            return (.responseTooLarge, "The response is larger than the session allows: \(curlText)")
        case CURLE_TOO_MANY_REDIRECTS:
            return (.tooManyRedirects, curlText)
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_WEIRD_SERVER_REPLY,
             CURLE_BAD_CONTENT_ENCODING, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3:
            return (.badResponse, "The server's response was cut off or malformed: \(curlText)")
        case CURLE_ABORTED_BY_CALLBACK:
            return (.cancelled, "The transfer was cancelled.")
        case CURLE_READ_ERROR, CURLE_WRITE_ERROR, CURLE_FILE_COULDNT_READ_FILE:
            return (.fileIO, "Reading or writing the body failed: \(curlText)")
        default:
            return (.other, "libcurl error \(code.rawValue): \(curlText)")
        }
    }

    /// A TLS alert (e.g. "tlsv13 alert certificate required") in an OpenSSL read/write error.
    static func isTLSAlert(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.contains("ssl") && lowered.contains(" alert ")
    }
}
