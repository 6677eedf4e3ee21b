import Foundation

/// The idempotency key of `RetryPolicy(idempotencyKeyHeader:)` (the IETF `Idempotency-Key`
/// draft's model): a `POST` or `PATCH` without the header gets a fresh UUID in it before its
/// first attempt, and every retry re-sends that same value, so the server can recognise a
/// repeat and answer it without doing the work twice. A request that sets the header keeps it.
enum IdempotencyKey {
    /// Methods that get a key when they lack one.
    static func isKeyed(_ method: HTTPRequest.HTTPMethod) -> Bool { method == .post || method == .patch }

    /// `request` with a fresh key in `header` when it is a `POST`/`PATCH` without one.
    static func adding(to request: RawRequest, header: String) -> RawRequest {
        guard isKeyed(request.method), request.value(forHTTPHeaderField: header) == nil else { return request }
        var keyed = request
        keyed.setValue(UUID().uuidString, forHTTPHeaderField: header)
        return keyed
    }

    /// Whether a failed attempt went with a key, so that repeating it is safe: the request that
    /// was sent (after interceptors) when there was one, else the one a retry re-sends.
    static func protects(_ context: RetryContext, header: String) -> Bool {
        (context.sentRequest ?? context.request).value(forHTTPHeaderField: header) != nil
            && context.request.value(forHTTPHeaderField: header) != nil
    }
}
