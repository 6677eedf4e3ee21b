import Foundation

extension LogRedaction {
    /// A body as it may be shown: with its secret fields hidden, or left out whole because it
    /// cannot be read field by field.
    public enum RedactedBody: Sendable, Hashable {
        /// The body to show, its secret fields hidden (unchanged when nothing in it is secret).
        case shown(Data)
        /// The body must not be shown; `reason` says why, in a few words for a log line or a
        /// recording's comment ("a JSON body of 9437184 bytes is larger than …").
        case omitted(reason: String)
    }

    /// JSON bodies up to this size (8 MiB) are parsed to hide their secret fields; a larger one
    /// is left out.
    public static let maximumParsedBodySize = 8 * 1024 * 1024

    /// The body to show, by these rules:
    /// - a form body (`application/x-www-form-urlencoded`) has its secret fields hidden;
    /// - a JSON body (a type naming `json`, or a generic type and a body whose first byte past
    ///   white space and a byte-order mark is `{` or `[`)
    ///   has its secret fields hidden at any depth, and the secrets of URLs in its strings
    ///   (it is then re-serialized with sorted keys); NDJSON line by line;
    /// - other UTF-8 text is shown as it is;
    /// - bytes that are not UTF-8 text are shown only for media types that cannot hold fields
    ///   (`image/…`, `audio/…`, `video/…`, `font/…`, PDF and archives).
    ///
    /// Everything else is `.omitted`: a JSON body larger than `maximumParsedBodySize` or that
    /// does not parse (declared, or read as JSON by its first byte), a form body that is not UTF-8, and binary data of any other type
    /// (`application/octet-stream`, protocol buffers, text in another encoding), which could
    /// carry a secret no rule can find. With redaction disabled every body is shown.
    public func redactBody(_ data: Data, contentType: String?) -> RedactedBody {
        guard isEnabled, !data.isEmpty else { return .shown(data) }
        let mediaType = Self.mediaType(contentType)
        let isText = !data.contains(0) && String(data: data, encoding: .utf8) != nil
        if mediaType == "application/x-www-form-urlencoded" {
            guard isText else { return .omitted(reason: "a form body that is not UTF-8 text cannot be redacted") }
            let text = String(decoding: data, as: UTF8.self)
            let redacted = URLTextRedactor(secretNames: pairNames).redactPairs(text)
            return .shown(redacted == text ? data : Data(redacted.utf8))
        }
        // (`json` anywhere: `application/json`, `…+json`, JSON lines as `jsonl`, `x-ndjson`, `json-seq`.)
        let declaresJSON = mediaType.contains("json")
        let looksLikeJSON = (mediaType.isEmpty || mediaType == "text/plain" || mediaType == "application/octet-stream")
            && Self.startsLikeJSON(data)
        if declaresJSON || (looksLikeJSON && isText) {
            guard data.count <= Self.maximumParsedBodySize else {
                return .omitted(reason: "a JSON body of \(data.count) bytes is larger than the \(Self.maximumParsedBodySize) bytes parsed to hide its secret fields")
            }
            if let redacted = redactedJSON(data) ?? redactedJSONLines(data) { return .shown(redacted) }
            return .omitted(reason: "a body of type \(mediaType.isEmpty ? "unknown" : mediaType) that reads as JSON but does not parse cannot be redacted")
        }
        if isText || Self.isOpaqueMedia(mediaType) { return .shown(data) }
        return .omitted(reason: "binary data of type \(mediaType.isEmpty ? "unknown" : mediaType) cannot be redacted field by field")
    }

    /// The body to show (see `redactBody(_:contentType:)`); a body left out reads
    /// `<body left out: reason>`.
    public func redactedBody(_ data: Data, contentType: String?) -> Data {
        switch redactBody(data, contentType: contentType) {
        case .shown(let shown): return shown
        case .omitted(let reason): return Data("<body left out: \(reason)>".utf8)
        }
    }

    /// Whether the body's first byte after a byte-order mark and white space opens a JSON
    /// object or array.
    private static func startsLikeJSON(_ data: Data) -> Bool {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let first = bytes.first { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// The media type of a `Content-Type` value, lower-cased, without parameters.
    static func mediaType(_ contentType: String?) -> String {
        contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
    }

    /// Types whose bytes are pictures, sound, fonts, documents or archives: no secret field to find.
    private static func isOpaqueMedia(_ mediaType: String) -> Bool {
        let type = mediaType.split(separator: "/", maxSplits: 1).first ?? ""
        return ["image", "audio", "video", "font"].contains(type) || opaqueApplicationTypes.contains(mediaType)
    }

    private static let opaqueApplicationTypes: Set<String> = [
        "application/pdf", "application/zip", "application/gzip", "application/x-gzip", "application/x-tar",
        "application/x-bzip2", "application/x-xz", "application/zstd", "application/x-7z-compressed", "application/wasm",
    ]

    /// A JSON document with its secrets hidden; nil when it is not one.
    private func redactedJSON(_ data: Data) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        var changed = false
        let redacted = redactJSON(object, changed: &changed)
        guard changed else { return data }
        return try? JSONSerialization.data(withJSONObject: redacted,
                                           options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
    }

    /// Newline-delimited JSON (one document a line) with its secrets hidden; nil when a line
    /// is not JSON.
    private func redactedJSONLines(_ data: Data) -> Data? {
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard lines.count > 1 else { return nil }
        var output = Data()
        for (index, line) in lines.enumerated() {
            if index > 0 { output.append(UInt8(ascii: "\n")) }
            let trimmed = line.filter { $0 != UInt8(ascii: "\r") }
            if trimmed.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
                output.append(contentsOf: line)
                continue
            }
            guard let redacted = redactedJSON(Data(trimmed)) else { return nil }
            output.append(redacted)
        }
        return output
    }

    private func redactJSON(_ object: Any, changed: inout Bool) -> Any {
        if let dictionary = object as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, value) in dictionary {
                if bodyFields.contains(Self.normalizedName(key)) {
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
        if let string = object as? String {
            let redacted = redactedText(string)
            if redacted != string { changed = true }
            return redacted
        }
        return object
    }
}
