import CCurl
import Foundation

/// When a reused keep-alive connection dies before any response byte arrives, libcurl 7.88 sends
/// the request again on a fresh connection, rewinding the body if it must
/// (`Curl_retry_request`). The server may have read and processed the first copy: harmless for
/// an idempotent request, a duplicate order or payment for a `POST`. libcurl calls the
/// pre-request callback before every request it sends, its own resends included, so a second call
/// within one transfer is a resend, which this refuses for requests that must be sent once.
///
/// Why not a fresh connection for every `POST`: it costs a TCP (and TLS) handshake each time, and
/// libcurl already checks that a pooled connection is still open before reusing it; the only
/// window left is a server closing the connection after it read the request, which is exactly
/// when the request may have been processed and must not be sent again blindly. The retry policy
/// decides then (`RetryPolicy.retriesNonIdempotentRequests`, or an idempotency key).
extension TransferState {
    /// Called before each request libcurl sends in this transfer; `false` refuses a resend.
    func requestWillBeSent() -> Bool {
        requestsStarted += 1
        guard requestsStarted > 1, !mayResend else { return true }
        storedError = HTTPTransportError(
            code: .badResponse,
            message: "The connection closed after the request was sent and before any response arrived: the server may have processed it. It was not sent again: a POST, a PATCH or a conditional request is resent only by a retry policy that allows it (RetryPolicy(retriesNonIdempotentRequests: true), or an idempotency key).",
            url: requestURL)
        return false
    }
}

extension RawRequest {
    /// Whether libcurl may resend this request by itself on a fresh connection: an idempotent
    /// method (RFC 9110 §9.2.2) without preconditions. A conditional request (a cache's
    /// revalidation, an `If-Match` update) is sent once: the first copy may have changed what the
    /// precondition tests, so a resend's answer (412, or 304 for what the first copy replaced)
    /// would not be the answer to the request as the caller made it.
    /// A streamed body is never: it can be read once.
    var mayBeResentByLibcurl: Bool {
        guard method.isIdempotent else { return false }
        if case .stream = body { return false }
        guard !headers.isEmpty else { return true }
        // One pass over the fields (most requests have none or a few), not one per name.
        return !headers.contains { field in Self.preconditionFields.contains { field.name.caseInsensitiveEquals($0) } }
    }

    /// RFC 9110 §13.1.
    static let preconditionFields = ["If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range"]
}

let curlPrereqCallback: ccurl_prereq_callback = { userdata, _, _, _, _ in
    TransferState.with(userdata, or: 0) { $0.requestWillBeSent() ? 0 : 1 }  // CURL_PREREQFUNC_OK / _ABORT
}
