import Foundation

/// An HTTP request as a value: method, endpoint, headers, parameter sets, its own interceptors,
/// an optional session and a time-out. Builders (`with(…)`) return modified copies, and sending
/// never changes a request, so one value can be sent any number of times.
///
/// A request can be built on a **base** request: the endpoint is appended to the base's, headers
/// override the base's, parameter sets come after the base's, its interceptors run before the
/// base's, and session and time-out are inherited unless given.
///
/// ```swift
/// let base = HTTPRequest(endpoint: "http://127.0.0.1:8080").with(header: "User-Agent", value: "Worker/1")
/// let search = HTTPRequest(endpoint: "/user", base: base)
///     .with(parameters: ["first_name": "John"], encoding: .url)
/// ```
///
/// **Parameter merge rules.** Sets with the same encoding merge into one dictionary, later keys
/// overriding earlier ones (a request's own sets come after its base's). Every `.url` set goes
/// to the query. One body encoding wins: the encoding of the last `.json`, `.propertyList` or
/// `.form` set; the sets of the other body encodings are not sent. `.custom` sets run last, in
/// order, each on the request resolved so far.
public struct HTTPRequest: HTTPRequestEnvelope, NotedRequest {
    /// The time-out used when neither the request nor its base gives one: 30 seconds.
    public static let defaultTimeout: TimeInterval = 30

    public var httpMethod: HTTPMethod
    public var endpoint: String
    public var headers: [String: String]
    public var parameters: [HTTPRequestParameters]
    public var requestInterceptors: [any HTTPRequestInterceptor]
    public var responseInterceptors: [any HTTPResponseInterceptor]
    public var session: Session?
    public var timeout: TimeInterval
    var notes: RequestNotes
    /// Where the response body goes when it should be written to a file (see `downloading(to:)`).
    public var download: Download?
    /// A file sent as the raw request body, streamed from disk (see `uploading(file:contentType:)`).
    public var bodyFile: URL?

    /// A request, optionally built on `base` (see the type's documentation for the rules).
    public init(
        httpMethod: HTTPMethod = .get,
        endpoint: String = "",
        headers: [String: String] = [:],
        parameters: [HTTPRequestParameters] = [],
        requestInterceptors: [any HTTPRequestInterceptor] = [],
        responseInterceptors: [any HTTPResponseInterceptor] = [],
        session: Session? = nil,
        timeout: TimeInterval? = nil,
        base: HTTPRequest? = nil
    ) {
        self.httpMethod = httpMethod
        self.endpoint = RequestBase.endpoint(endpoint, base: base?.endpoint)
        self.headers = RequestBase.headers(headers, base: base?.headers)
        self.parameters = (base?.parameters ?? []) + parameters
        self.requestInterceptors = requestInterceptors + (base?.requestInterceptors ?? [])
        self.responseInterceptors = responseInterceptors + (base?.responseInterceptors ?? [])
        self.session = session ?? base?.session
        self.timeout = timeout ?? base?.timeout ?? Self.defaultTimeout
        self.notes = RequestNotes(base: base)
        self.download = nil
        self.bodyFile = nil
    }

    /// Header fields sent after `headers`, in order, each as often as it was added: repeated
    /// fields (two `Accept` lines, several `Link`s) that the `headers` dictionary cannot hold.
    /// A request built on a base starts with the base's. See `adding(header:value:)`.
    public var headerFields: HTTPHeaders {
        get { notes.headerFields }
        set { notes.headerFields = newValue }
    }

    /// A copy that sends one more `name: value` line after `headers` and the fields added before
    /// it, even when a field of that name is already there (`with(header:value:)` replaces).
    ///
    /// ```swift
    /// let request = HTTPRequest(endpoint: url).adding(header: "Accept", value: "application/json")
    ///     .adding(header: "Accept", value: "text/plain")     // two Accept lines, in this order
    /// ```
    public func adding(header name: String, value: String) -> HTTPRequest {
        var copy = self
        copy.notes.headerFields.add(name, value)
        return copy
    }

    /// Resolves the request into the wire form: endpoint parsed, parameters merged and encoded.
    public func resolve() throws(HTTPTransportError) -> RawRequest {
        try wireRequest(endpoints: nil)
    }

    func wireRequest(endpoints: ParsedEndpoints?) throws(HTTPTransportError) -> RawRequest {
        let bodyRule: RequestResolver.BodyRule = if let bodyFile { .file(bodyFile) } else if let data = notes.bodyData { .data(data) }
            else if let stream = notes.bodyStream { .stream(stream) } else { .parameters }
        return try RequestResolver.resolve(self, bodyRule: bodyRule, download: download, endpoints: endpoints)
    }

    /// A copy that sends the file as its raw body, streamed from disk (e.g. a `PUT` of a file).
    /// Body parameter sets are then ignored; `.url` sets still go to the query.
    public func uploading(file: URL, contentType: String = "application/octet-stream") -> HTTPRequest {
        var copy = self
        copy.bodyFile = file
        copy.notes.bodyData = nil
        copy.notes.bodyStream = nil
        if !copy.headers.keys.contains(where: { $0.caseInsensitiveEquals("Content-Type") }) {
            copy.headers["Content-Type"] = contentType
        }
        return copy
    }

    /// A copy that sends `data` as its raw body, with the method it has (set `httpMethod` for a
    /// `POST` or `PUT`). Body parameter sets are then ignored; `.url` sets still go to the query.
    /// `contentType` is sent unless the request has a `Content-Type` already (in `headers` or
    /// `headerFields`).
    public func uploading(data: Data, contentType: String = "application/octet-stream") -> HTTPRequest {
        var copy = self
        copy.bodyFile = nil
        copy.notes.bodyData = data
        copy.notes.bodyStream = nil
        if !copy.headers.keys.contains(where: { $0.caseInsensitiveEquals("Content-Type") }), !copy.headerFields.contains("Content-Type") {
            copy.headers["Content-Type"] = contentType
        }
        return copy
    }

    /// A copy whose response body is written to `destination` (atomically, see `Download`), at
    /// most the session's `maxResponseSize` bytes.
    public func downloading(to destination: URL, resume: Bool = false) -> HTTPRequest {
        downloading(to: destination, resume: resume, maxSize: nil)
    }

    /// A copy whose response body is written to `destination` (atomically, see `Download`), at
    /// most `maxSize` bytes (`nil`: the session's `maxResponseSize`).
    public func downloading(to destination: URL, resume: Bool = false, maxSize: Int64?) -> HTTPRequest {
        var copy = self
        copy.download = Download(destination: destination, resume: resume, maxSize: maxSize)
        return copy
    }
}

/// The base-request rules shared by every request type.
enum RequestBase {
    /// Base endpoint + endpoint, with one `/` between them unless the endpoint is empty or
    /// starts with `/` or `?`.
    static func endpoint(_ endpoint: String, base: String?) -> String {
        guard let base, !base.isEmpty else { return endpoint }
        if endpoint.isEmpty { return base }
        let baseEndsWithSlash = base.hasSuffix("/")
        if endpoint.hasPrefix("/") {
            return baseEndsWithSlash ? base + endpoint.dropFirst() : base + endpoint
        }
        if endpoint.hasPrefix("?") || baseEndsWithSlash { return base + endpoint }
        return base + "/" + endpoint
    }

    /// Base headers overridden (case-insensitively) by the request's own.
    static func headers(_ own: [String: String], base: [String: String]?) -> [String: String] {
        guard var merged = base, !merged.isEmpty else { return own }
        for (name, value) in own {
            for key in merged.keys where key.caseInsensitiveEquals(name) { merged.removeValue(forKey: key) }
            merged[name] = value
        }
        return merged
    }
}
