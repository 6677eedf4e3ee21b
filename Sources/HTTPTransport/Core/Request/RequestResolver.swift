import Foundation

extension HTTPRequestEnvelope {
    /// The wire form, the endpoint parsed through the session's `endpoints`: how a send resolves
    /// any request type (the library's own through `RequestResolver`, a user's own through its
    /// `resolve()`).
    func resolve(endpoints: ParsedEndpoints) throws(HTTPTransportError) -> RawRequest {
        // Casts to the concrete types, which a specialised caller resolves at compile time
        // (a cast to the protocol would copy the request into a box on every send).
        switch self {
        case let request as HTTPRequest: return try request.wireRequest(endpoints: endpoints)
        case let request as DataUploadHTTPRequest: return try request.wireRequest(endpoints: endpoints)
        case let request as FileUploadHTTPRequest: return try request.wireRequest(endpoints: endpoints)
        default: return try resolve()
        }
    }
}

/// Turns a request value into its wire form, in steps: check what the builders noted, parse the
/// endpoint, merge the parameter sets by the rules documented on `HTTPRequest`, encode the query
/// and the body (see `RequestBodyEncoding`), then run the custom encodings.
enum RequestResolver {
    /// What supplies the body of each request type.
    enum BodyRule {
        /// `HTTPRequest`: the winning body encoding among `.json`, `.propertyList`, `.form`.
        case parameters
        /// `DataUploadHTTPRequest`: the bytes; body parameter sets are ignored.
        case data(Data)
        /// `FileUploadHTTPRequest`: the file part, then `.propertyList`/`.form` values as fields.
        case multipart(FileMultipart)
        /// `HTTPRequest.uploading(file:)`: the file streamed as the raw body.
        case file(URL)
        /// `HTTPRequest.uploading(stream:length:)`, `uploading(length:producer:)`.
        case stream(StreamedBody)
    }

    static func resolve(_ request: some NotedRequest, bodyRule: BodyRule, download: Download? = nil,
                        endpoints: ParsedEndpoints?) throws(HTTPTransportError) -> RawRequest {
        if let problem = request.notes.problem {
            throw HTTPTransportError(code: .encodingFailed, message: problem + " Nothing was sent.", url: request.endpoint)
        }
        let sets = request.parameters
        let parsed = try parse(request.endpoint, endpoints: endpoints)
        let queried = try withQuery(of: sets, appendedTo: parsed.url)
        let url = queried ?? parsed.url
        var headers = HTTPHeaders(request.headers)
        for field in request.notes.headerFields { headers.add(field.name, field.value) }
        let body = try RequestBodyEncoding.body(for: bodyRule, sets: sets, headers: &headers, url: url)
        var raw = RawRequest(method: request.httpMethod, url: url, headers: headers, body: body, timeout: request.timeout)
        if queried == nil { raw.urlText = parsed.text }
        if let download { raw.download = download }
        if let note = request.notes.bodyConsumer { raw.bodyConsumer = note.consumer }
        if let webSocket = request.notes.webSocket { raw.webSocket = webSocket }
        if sets.contains(where: { $0.encoding.kind == .custom }) { try applyCustomEncodings(of: sets, to: &raw) }
        return raw
    }

    /// Parses an endpoint into an absolute http(s) URL (through the session's `endpoints` when
    /// given, which keep the endpoints parsed recently).
    static func parseURL(_ endpoint: String, endpoints: ParsedEndpoints? = nil) throws(HTTPTransportError) -> URL {
        try parse(endpoint, endpoints: endpoints).url
    }

    /// `parseURL`, with the URL's text.
    private static func parse(_ endpoint: String, endpoints: ParsedEndpoints?) throws(HTTPTransportError) -> ParsedEndpoints.Parsed {
        if let parsed = endpoints?.url(for: endpoint) { return parsed }
        // Foundation's trimming bridges to NSString: skip it when the ends are visible ASCII.
        let trimmed = endpoint.utf8.first.map { $0 > 0x20 && $0 < 0x7F } == true
            && endpoint.utf8.last.map { $0 > 0x20 && $0 < 0x7F } == true
            ? endpoint : endpoint.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            throw HTTPTransportError(code: .invalidURL, message: "The endpoint is empty.", url: endpoint)
        }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased() else {
            throw HTTPTransportError(code: .invalidURL, message: "'\(endpoint)' is not a valid URL.", url: endpoint)
        }
        guard scheme == "http" || scheme == "https" else {
            throw HTTPTransportError(code: .invalidURL,
                                     message: "'\(endpoint)' has scheme '\(scheme)'; only http and https are supported.",
                                     url: endpoint)
        }
        guard let host = url.host, !host.isEmpty else {
            throw HTTPTransportError(code: .invalidURL, message: "'\(endpoint)' has no host.", url: endpoint)
        }
        let parsed = ParsedEndpoints.Parsed(url: url, text: url.absoluteString)
        endpoints?.remember(parsed, for: endpoint)
        return parsed
    }

    /// The URL with every `.url` set, merged in order, appended to its own query (nil: there is
    /// no `.url` set, the URL stays as it is).
    private static func withQuery(of sets: [HTTPRequestParameters], appendedTo url: URL) throws(HTTPTransportError) -> URL? {
        guard let query = merged(sets, kind: .url) else { return nil }
        try checkSupported(query, encoding: "url")
        return appendQuery(URLQueryEncoder.encode(query), to: url)
    }

    /// The `.custom` sets, in order, each on the request resolved so far.
    private static func applyCustomEncodings(of sets: [HTTPRequestParameters],
                                             to request: inout RawRequest) throws(HTTPTransportError) {
        for set in sets {
            guard case .custom(let encode) = set.encoding else { continue }
            try checkSupported(set.values, encoding: "custom")
            do {
                request = try encode(request, set.parameters)
            } catch let error as HTTPTransportError {
                throw error
            } catch {
                throw HTTPTransportError(code: .encodingFailed, message: "A custom parameter encoding failed: \(error)",
                                         url: request.url.absoluteString, underlyingError: error)
            }
        }
    }

    /// The sets of one encoding merged into one dictionary (later keys win); nil when none.
    static func merged(_ sets: [HTTPRequestParameters], kind: HTTPRequestParameters.Encoding.Kind)
        -> [String: ParameterValue]? {
        var result: [String: ParameterValue]?
        for set in sets where set.encoding.kind == kind {
            result = (result ?? [:]).merging(set.values) { _, new in new }
        }
        return result
    }

    /// Refuses values the encoding cannot write, naming the key path (`user.tags[1]`).
    static func checkSupported(_ values: [String: ParameterValue], encoding: String) throws(HTTPTransportError) {
        if let (path, typeName) = ParameterValue.dictionary(values).firstUnsupportedPath(prefix: "") {
            throw HTTPTransportError(
                code: .encodingFailed,
                message: "Parameter '\(path)' has a value of type \(typeName), which \(encoding) encoding cannot encode.")
        }
    }

    /// Appends an encoded query to the URL's own query (before any fragment).
    static func appendQuery(_ query: String, to url: URL) -> URL {
        guard !query.isEmpty else { return url }
        var string = url.absoluteString
        var fragment = ""
        if let hashIndex = string.firstIndex(of: "#") {
            fragment = String(string[hashIndex...])
            string = String(string[..<hashIndex])
        }
        if string.contains("?") {
            string += (string.hasSuffix("?") || string.hasSuffix("&")) ? query : "&" + query
        } else {
            string += "?" + query
        }
        return URL(string: string + fragment) ?? url
    }
}
