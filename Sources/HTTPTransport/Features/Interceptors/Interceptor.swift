import Foundation

/// Middleware that sees, and may change, every request before it is sent: add a header, sign
/// it, log it. Throwing ends the send with `.interceptorFailed`, and nothing is sent.
///
/// ```swift
/// struct AuthInterceptor: HTTPRequestInterceptor {
///     let token: String
///     func intercept(request: RawRequest) throws -> RawRequest {
///         var request = request
///         request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
///         return request
///     }
/// }
/// ```
public protocol HTTPRequestInterceptor: Sendable {
    /// Returns the request to send (a modified copy, or the same one).
    func intercept(request: RawRequest) throws -> RawRequest
}

/// Middleware that sees, and may change, every response: log it, store its cookies, turn its
/// body into a clearer error, or clear an error to accept the response after all.
public protocol HTTPResponseInterceptor: Sendable {
    /// Returns the response to hand on (a modified copy, or the same one).
    func intercept(response: RawResponse) -> RawResponse

    /// `false` for an interceptor that only ever changes failed responses: the pipeline then
    /// hands it failures only, and successes skip it (and the copy of the response there and
    /// back). Read once, when the transport is made. Default `true`.
    var interceptsSuccesses: Bool { get }
}

extension HTTPResponseInterceptor {
    /// Every response goes through the interceptor.
    public var interceptsSuccesses: Bool { true }
}

/// A request interceptor made from a closure.
///
/// ```swift
/// let stamp = ClosureRequestInterceptor { request in
///     var request = request
///     request.setValue(UUID().uuidString, forHTTPHeaderField: "X-Request-ID")
///     return request
/// }
/// ```
public struct ClosureRequestInterceptor: HTTPRequestInterceptor {
    private let body: @Sendable (RawRequest) throws -> RawRequest

    /// An interceptor that runs `body`.
    public init(_ body: @escaping @Sendable (RawRequest) throws -> RawRequest) { self.body = body }

    public func intercept(request: RawRequest) throws -> RawRequest { try body(request) }
}

/// A response interceptor made from a closure.
public struct ClosureResponseInterceptor: HTTPResponseInterceptor {
    private let body: @Sendable (RawResponse) -> RawResponse

    /// An interceptor that runs `body`.
    public init(_ body: @escaping @Sendable (RawResponse) -> RawResponse) { self.body = body }

    public func intercept(response: RawResponse) -> RawResponse { body(response) }
}
