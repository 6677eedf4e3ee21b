import Foundation

/// What every request type shares (`HTTPRequest`, `DataUploadHTTPRequest`,
/// `FileUploadHTTPRequest`), and the builders that return modified copies.
public protocol HTTPRequestEnvelope: Sendable {
    /// The request method.
    var httpMethod: HTTPRequest.HTTPMethod { get set }
    /// The URL, or its part appended to a base request's endpoint.
    var endpoint: String { get set }
    /// Header fields by name.
    var headers: [String: String] { get set }
    /// Parameter sets, merged when the request is resolved.
    var parameters: [HTTPRequestParameters] { get set }
    /// Interceptors run on this request before the transport's.
    var requestInterceptors: [any HTTPRequestInterceptor] { get set }
    /// Interceptors run on this request's response before the transport's.
    var responseInterceptors: [any HTTPResponseInterceptor] { get set }
    /// A session that replaces the transport's for this request.
    var session: Session? { get set }
    /// Seconds the whole exchange may take (default 30).
    var timeout: TimeInterval { get set }
    /// The wire form of the request.
    func resolve() throws(HTTPTransportError) -> RawRequest
}

extension HTTPRequestEnvelope {
    /// A copy with the header set (replacing one of the same name, case-insensitively).
    public func with(header: String, value: String) -> Self {
        var copy = self
        copy.headers = RequestBase.headers([header: value], base: headers)
        return copy
    }

    /// A copy that also sends the cookie `name=value` in its `Cookie` header. A name that is not
    /// a token, or a name or value with `;` or a control character (which would smuggle another
    /// cookie or header in), makes the send fail with `.encodingFailed` before anything is sent.
    public func with(cookieName name: String, value: String) -> Self {
        guard HeaderFieldRules.isToken(name), CookieParser.isSendable(name: name, value: value) else {
            return changingNotes { notes in
                notes.problem = "The cookie \(name.debugDescription) cannot be sent: a cookie name must be a token and "
                    + "neither name nor value may contain ';' or control characters."
            }
        }
        var copy = self
        let key = headers.keys.first { $0.caseInsensitiveEquals("Cookie") }
        let joined = CookieHeader.appending(pairs: [(name, value)], to: key.flatMap { headers[$0] }) ?? ""
        if let key {
            copy.headers[key] = joined
        } else {
            copy.headers["Cookie"] = joined
        }
        return copy
    }

    /// A copy that also sends `cookie` (its name and value) in its `Cookie` header.
    public func with(cookie: HTTPCookie) -> Self {
        with(cookieName: cookie.name, value: cookie.value)
    }

    /// A copy with one more parameter in a set of the given encoding.
    public func with(parameter: String, value: Any, encoding: HTTPRequestParameters.Encoding) -> Self {
        with(parameters: HTTPRequestParameters(parameters: [parameter: value], encoding: encoding))
    }

    /// A copy with one more parameter set.
    public func with(parameters: [String: Any], encoding: HTTPRequestParameters.Encoding) -> Self {
        with(parameters: HTTPRequestParameters(parameters: parameters, encoding: encoding))
    }

    /// A copy with one more parameter set.
    public func with(parameters: HTTPRequestParameters) -> Self {
        var copy = self
        copy.parameters.append(parameters)
        return copy
    }

    /// A copy with more parameter sets.
    public func with(parameters: [HTTPRequestParameters]) -> Self {
        var copy = self
        copy.parameters.append(contentsOf: parameters)
        return copy
    }

    /// A copy with request interceptors appended to its own (which run before its base's).
    public func with(interceptors: [any HTTPRequestInterceptor]) -> Self {
        var copy = self
        let inherited = min(recordedNotes.inheritedRequestInterceptors, copy.requestInterceptors.count)
        copy.requestInterceptors.insert(contentsOf: interceptors, at: copy.requestInterceptors.count - inherited)
        return copy
    }

    /// A copy with response interceptors appended to its own (which run before its base's).
    public func with(interceptors: [any HTTPResponseInterceptor]) -> Self {
        var copy = self
        let inherited = min(recordedNotes.inheritedResponseInterceptors, copy.responseInterceptors.count)
        copy.responseInterceptors.insert(contentsOf: interceptors, at: copy.responseInterceptors.count - inherited)
        return copy
    }

    /// A copy with HTTP Basic authentication (`Authorization: Basic …`).
    public func with(basicAuthUser user: String, password: String) -> Self {
        let token = Data("\(user):\(password)".utf8).base64EncodedString()
        return with(header: "Authorization", value: "Basic \(token)")
    }

    /// A copy with a bearer token (`Authorization: Bearer …`).
    public func with(bearerToken token: String) -> Self {
        with(header: "Authorization", value: "Bearer \(token)")
    }

    /// A copy with another time-out.
    public func with(timeout: TimeInterval) -> Self {
        var copy = self
        copy.timeout = timeout
        return copy
    }
}
