/// The library's request type under a name no other module shares. In a file that also imports
/// swift-http-types (whose `HTTPRequest` has the same name) write `HTTPTransport.HTTPRequest`,
/// `HTTPTransportRequest` or `HTTPTypes.HTTPRequest`.
public typealias HTTPTransportRequest = HTTPRequest

/// The library's response type under a name no other module shares (see `HTTPTransportRequest`).
public typealias HTTPTransportResponse = HTTPResponse

extension HTTPTransport {
    /// The library's request type, reachable as `HTTPTransport.HTTPRequest` where another module's
    /// `HTTPRequest` makes the plain name ambiguous (the module and this class share the name
    /// `HTTPTransport`, so a module-qualified name would otherwise look inside the class).
    public typealias HTTPRequest = HTTPTransportRequest

    /// The library's response type, reachable as `HTTPTransport.HTTPResponse` (see `HTTPRequest`).
    public typealias HTTPResponse = HTTPTransportResponse
}
