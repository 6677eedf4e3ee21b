import Foundation

/// Turns a request value into its wire form: parses the endpoint, merges the parameter sets by
/// the rules documented on `HTTPRequest`, and encodes query and body.
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
    }

    static func resolve(_ request: some HTTPRequestEnvelope, bodyRule: BodyRule,
                        download: Download? = nil) throws(HTTPTransportError) -> RawRequest {
        let url = try parseURL(request.endpoint)
        var headers = HTTPHeaders(request.headers)
        let sets = request.parameters

        // 1. Query: every .url set, merged in order.
        let query = merged(sets, kind: .url)
        var finalURL = url
        if let query {
            try checkSupported(query, encoding: "url")
            finalURL = appendQuery(URLQueryEncoder.encode(query), to: url)
        }

        // 2. Body.
        var body: RawRequest.Body?
        switch bodyRule {
        case .parameters:
            let bodyKinds: [HTTPRequestParameters.Encoding.Kind] = [.json, .propertyList, .form]
            if let winner = sets.last(where: { bodyKinds.contains($0.encoding.kind) })?.encoding.kind,
               let values = merged(sets, kind: winner) {
                try checkSupported(values, encoding: "\(winner)")
                switch winner {
                case .json:
                    body = .data(JSONParameterEncoder.encode(values))
                    setDefault(&headers, "Content-Type", "application/json")
                case .propertyList:
                    do {
                        body = .data(try PropertyListParameterEncoder.encode(values))
                    } catch let error as HTTPTransportError {
                        throw withURL(error, request.endpoint)
                    } catch {
                        throw HTTPTransportError(code: .encodingFailed, message: "Property-list encoding failed: \(error)",
                                                 url: request.endpoint)
                    }
                    setDefault(&headers, "Content-Type", "application/x-plist")
                default:
                    body = .data(Data(URLQueryEncoder.encode(values).utf8))
                    setDefault(&headers, "Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
                }
            }
        case .data(let data):
            body = .data(data)
            setDefault(&headers, "Content-Type", "application/octet-stream")
        case .file(let fileURL):
            guard FileManager.default.isReadableFile(atPath: fileURL.path) else {
                throw HTTPTransportError(code: .fileIO, message: "Cannot read the file to upload: \(fileURL.path)",
                                         url: finalURL.absoluteString)
            }
            body = .file(fileURL)
            setDefault(&headers, "Content-Type", "application/octet-stream")
        case .multipart(let file):
            if let fileURL = file.fileURL, !FileManager.default.isReadableFile(atPath: fileURL.path) {
                throw HTTPTransportError(code: .fileIO, message: "Cannot read the file to upload: \(fileURL.path)",
                                         url: finalURL.absoluteString)
            }
            var parts = [file.multipartPart]
            var fields: [String: ParameterValue] = [:]
            for set in sets where set.encoding.kind == .propertyList || set.encoding.kind == .form {
                fields.merge(set.values) { _, new in new }
            }
            try checkSupported(fields, encoding: "form")
            for key in fields.keys.sorted() {
                guard let value = fields[key] else { continue }
                for (name, text) in formFields(key: key, value: value) {
                    parts.append(MultipartPart(name: name, content: .data(Data(text.utf8))))
                }
            }
            try HeaderFieldRules.check(parts: parts, url: finalURL.absoluteString)
            try HeaderFieldRules.check(parts: parts, url: finalURL.absoluteString)
            body = .multipart(parts)
        }

        var raw = RawRequest(method: request.httpMethod, url: finalURL, headers: headers, body: body,
                             timeout: request.timeout, download: download)

        // 3. Custom encodings, in order.
        guard sets.contains(where: { if case .custom = $0.encoding { true } else { false } }) else { return raw }
        for set in sets {
            guard case .custom(let encode) = set.encoding else { continue }
            try checkSupported(set.values, encoding: "custom")
            do {
                raw = try encode(raw, set.parameters)
            } catch let error as HTTPTransportError {
                throw error
            } catch {
                throw HTTPTransportError(code: .encodingFailed, message: "A custom parameter encoding failed: \(error)",
                                         url: finalURL.absoluteString, underlyingError: error)
            }
        }
        return raw
    }

    /// Parses an endpoint into an absolute http(s) URL.
    static func parseURL(_ endpoint: String) throws(HTTPTransportError) -> URL {
        if let url = ParsedEndpoints.url(for: endpoint) { return url }
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
        ParsedEndpoints.remember(url, for: endpoint)
        return url
    }

    private static func merged(_ sets: [HTTPRequestParameters], kind: HTTPRequestParameters.Encoding.Kind)
        -> [String: ParameterValue]? {
        var result: [String: ParameterValue]?
        for set in sets where set.encoding.kind == kind {
            result = (result ?? [:]).merging(set.values) { _, new in new }
        }
        return result
    }

    private static func checkSupported(_ values: [String: ParameterValue], encoding: String) throws(HTTPTransportError) {
        if let (path, typeName) = ParameterValue.dictionary(values).firstUnsupportedPath(prefix: "") {
            throw HTTPTransportError(
                code: .encodingFailed,
                message: "Parameter '\(path)' has a value of type \(typeName), which \(encoding) encoding cannot encode.")
        }
    }

    private static func withURL(_ error: HTTPTransportError, _ url: String) -> HTTPTransportError {
        var error = error
        if error.url == nil { error.url = url }
        return error
    }

    private static func setDefault(_ headers: inout HTTPHeaders, _ name: String, _ value: String) {
        if !headers.contains(name) { headers.add(name, value) }
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

    /// Form fields for a nested value, named the way URL encoding names them.
    private static func formFields(key: String, value: ParameterValue) -> [(String, String)] {
        switch value {
        case .dictionary(let dictionary):
            return dictionary.keys.sorted().flatMap { nested in
                dictionary[nested].map { formFields(key: "\(key)[\(nested)]", value: $0) } ?? []
            }
        case .array(let values):
            return values.flatMap { formFields(key: "\(key)[]", value: $0) }
        default:
            return [(key, URLQueryEncoder.scalarString(value))]
        }
    }
}
