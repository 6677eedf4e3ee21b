import Foundation

/// What `LogRequestInterceptor`, `LogResponseInterceptor` and `curlCommand` hide: secret
/// headers, the password of a URL's user info, secret query parameters, and secret fields of
/// JSON and form bodies. Names compare case-insensitively; hidden values read `<redacted>`.
///
/// ```swift
/// let redaction = LogRedaction(headers: LogRedaction.defaultHeaders.union(["X-Api-Key"]))
/// print(redaction.redactedURL(request.url))
/// ```
public struct LogRedaction: Sendable, Hashable {
    /// What replaces a hidden value.
    public static let placeholder = "<redacted>"
    /// Headers hidden by default.
    public static let defaultHeaders: Set<String> = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]
    /// Query parameters hidden by default.
    public static let defaultQueryParameters: Set<String> = [
        "token", "access_token", "password", "api_key", "apikey", "secret", "client_secret",
    ]
    /// JSON and form body fields hidden by default.
    public static let defaultBodyFields: Set<String> = [
        "password", "token", "access_token", "refresh_token", "secret", "client_secret",
    ]

    /// Hides the defaults.
    public static let `default` = LogRedaction()
    /// Hides nothing.
    public static let disabled = LogRedaction(isEnabled: false)

    /// `false` shows everything as it is.
    public let isEnabled: Bool
    /// Hidden header names (lowercased).
    public let headers: Set<String>
    /// Hidden query parameter names (lowercased).
    public let queryParameters: Set<String>
    /// Hidden body field names (lowercased): keys of JSON objects at any depth and names of
    /// `application/x-www-form-urlencoded` fields.
    public let bodyFields: Set<String>

    /// A redaction of the given names (compared case-insensitively).
    public init(
        isEnabled: Bool = true,
        headers: Set<String> = LogRedaction.defaultHeaders,
        queryParameters: Set<String> = LogRedaction.defaultQueryParameters,
        bodyFields: Set<String> = LogRedaction.defaultBodyFields
    ) {
        self.isEnabled = isEnabled
        self.headers = Set(headers.map { $0.lowercased() })
        self.queryParameters = Set(queryParameters.map { $0.lowercased() })
        self.bodyFields = Set(bodyFields.map { $0.lowercased() })
    }

    /// `true` when the value of header `name` is hidden.
    public func hidesHeader(_ name: String) -> Bool {
        isEnabled && headers.contains(name.lowercased())
    }

    /// The value to show for header `name`.
    public func headerValue(_ value: String, name: String) -> String {
        hidesHeader(name) ? Self.placeholder : value
    }

    /// The URL to show: the user-info password and secret query values hidden.
    public func redactedURL(_ url: URL) -> String {
        redactedURL(url.absoluteString)
    }

    /// The URL text to show: the user-info password and secret query values hidden.
    public func redactedURL(_ text: String) -> String {
        guard isEnabled else { return text }
        var result = text
        // User info: scheme://user:password@host…
        if let schemeEnd = result.range(of: "://") {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd = result[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? result.endIndex
            let authority = result[authorityStart..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                result.replaceSubrange(result.index(after: colon)..<at, with: Self.placeholder)
            }
        }
        // Query: name=value pairs whose (decoded) name is secret.
        guard let question = result.firstIndex(of: "?") else { return result }
        let fragmentStart = result[question...].firstIndex(of: "#") ?? result.endIndex
        let query = String(result[result.index(after: question)..<fragmentStart])
        let redactedQuery = redactPairs(query, names: queryParameters)
        if redactedQuery != query {
            result.replaceSubrange(result.index(after: question)..<fragmentStart, with: redactedQuery)
        }
        return result
    }

    /// The body to show: secret fields of a JSON object or form body hidden (JSON is then
    /// re-serialized with sorted keys). Other bodies are returned as they are.
    public func redactedBody(_ data: Data, contentType: String?) -> Data {
        guard isEnabled, !bodyFields.isEmpty, !data.isEmpty else { return data }
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        if mediaType == "application/x-www-form-urlencoded" {
            guard let text = String(data: data, encoding: .utf8) else { return data }
            let redacted = redactPairs(text, names: bodyFields.union(queryParameters))
            return redacted == text ? data : Data(redacted.utf8)
        }
        // JSON: by media type, or by look when the type is missing or generic.
        let looksLikeJSON = mediaType.hasSuffix("json") || mediaType.hasSuffix("+json")
            || ((mediaType.isEmpty || mediaType == "text/plain" || mediaType == "application/octet-stream")
                && data.first.map { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") } == true)
        guard looksLikeJSON, data.count <= 8 * 1024 * 1024,
              let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return data }
        var changed = false
        let redacted = redactJSON(object, changed: &changed)
        guard changed,
              let output = try? JSONSerialization.data(withJSONObject: redacted,
                                                       options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        else { return data }
        return output
    }

    /// `true` when the value of a body or form field named `name` is hidden.
    public func hidesField(_ name: String) -> Bool {
        isEnabled && (bodyFields.contains(name.lowercased()) || queryParameters.contains(name.lowercased()))
    }

    private func redactJSON(_ object: Any, changed: inout Bool) -> Any {
        if let dictionary = object as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, value) in dictionary {
                if bodyFields.contains(key.lowercased()) {
                    result[key] = Self.placeholder
                    changed = true
                } else {
                    result[key] = redactJSON(value, changed: &changed)
                }
            }
            return result
        }
        if let array = object as? [Any] {
            return array.map { redactJSON($0, changed: &changed) }
        }
        return object
    }

    private func redactPairs(_ text: String, names: Set<String>) -> String {
        guard !names.isEmpty, !text.isEmpty else { return text }
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let rawName = pair[..<equals]
            let name = (String(rawName).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
                ?? String(rawName)).lowercased()
            // `foo[bar]` style names are checked by their last bracketed component too.
            let leaf = name.split(whereSeparator: { $0 == "[" || $0 == "]" }).last.map(String.init) ?? name
            guard names.contains(name) || names.contains(leaf) else { return String(pair) }
            return String(rawName) + "=" + Self.placeholder
        }
        return pairs.joined(separator: "&")
    }
}

/// Formatting shared by the log interceptors.
enum LogFormat {
    /// Milliseconds with one decimal.
    static func milliseconds(_ seconds: TimeInterval) -> String {
        String(format: "%.1f ms", seconds * 1000)
    }

    /// Header lines, indented, secrets hidden; `filter` (lowercased names) keeps only those.
    static func headerLines(_ headers: HTTPHeaders, redaction: LogRedaction, filter: Set<String>? = nil) -> [String] {
        headers.compactMap { field in
            if let filter, !filter.contains(field.name.lowercased()) { return nil }
            return "  \(field.name): \(redaction.headerValue(field.value, name: field.name))"
        }
    }

    /// A body for display: secrets hidden, text shown (cut at `maxLength` bytes with a
    /// "… (N more bytes)" marker), binary data summarized.
    static func body(_ data: Data, contentType: String?, redaction: LogRedaction, maxLength: Int) -> String {
        if data.isEmpty { return "(empty body)" }
        let shown = redaction.redactedBody(data, contentType: contentType)
        guard String(data: shown, encoding: .utf8) != nil else {
            return "<\(data.count) bytes of binary data>"
        }
        let limit = max(0, maxLength)
        if shown.count <= limit { return String(decoding: shown, as: UTF8.self) }
        // Cut at a character boundary: step back over UTF-8 continuation bytes.
        var cut = limit
        while cut > 0, cut < shown.count, shown[shown.startIndex + cut] & 0xC0 == 0x80 { cut -= 1 }
        let head = String(decoding: shown.prefix(cut), as: UTF8.self)
        return head + "… (\(shown.count - cut) more bytes)"
    }

    /// A request body for display.
    static func requestBody(_ request: RawRequest, redaction: LogRedaction, maxLength: Int) -> [String] {
        switch request.body {
        case nil:
            return ["  (no body)"]
        case .data(let data):
            return indent(body(data, contentType: request.value(forHTTPHeaderField: "Content-Type"),
                               redaction: redaction, maxLength: maxLength))
        case .file(let url):
            return ["  <body streamed from file \(url.path)>"]
        case .multipart(let parts):
            var lines = ["  <multipart/form-data, \(parts.count) part\(parts.count == 1 ? "" : "s")>"]
            for part in parts {
                var label = "  part \"\(part.name)\""
                if let fileName = part.fileName { label += " filename \"\(fileName)\"" }
                if let mimeType = part.mimeType { label += " type \(mimeType)" }
                switch part.content {
                case .file(let url):
                    lines.append(label + ": <file \(url.path)>")
                case .data(let data):
                    if redaction.hidesField(part.name), part.fileName == nil {
                        lines.append(label + ": " + LogRedaction.placeholder)
                    } else {
                        lines.append(label + ": " + body(data, contentType: part.mimeType, redaction: redaction,
                                                         maxLength: maxLength))
                    }
                }
            }
            return lines
        }
    }

    /// Every line of `text` indented by two spaces.
    static func indent(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
    }
}

/// The id that ties a request's log record to its response's.
enum RequestIDs {
    private static let threadKey = "HTTPTransport.LogRequestInterceptor.requestID"

    /// A fresh id: 16 hex digits.
    static func make() -> String {
        let value = UInt64.random(in: .min ... .max)
        let hex = String(value, radix: 16, uppercase: false)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Remembers on this thread the id of the request about to be sent (the pipeline runs a
    /// send's interceptors and engine on one thread), for when it is not sent as a header.
    static func remember(_ id: String, for request: RawRequest) {
        Thread.current.threadDictionary[threadKey] = "\(request.method.rawValue) \(request.url.absoluteString)\n\(id)"
    }

    /// The id remembered on this thread for `request`, if it is the last one logged here.
    static func recall(for request: RawRequest) -> String? {
        guard let stored = Thread.current.threadDictionary[threadKey] as? String,
              let newline = stored.lastIndex(of: "\n") else { return nil }
        guard stored[..<newline] == "\(request.method.rawValue) \(request.url.absoluteString)" else { return nil }
        return String(stored[stored.index(after: newline)...])
    }
}
