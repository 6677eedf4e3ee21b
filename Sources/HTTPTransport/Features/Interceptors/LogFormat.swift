import Foundation

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
    /// "… (N more bytes)" marker), binary data summarized, a body the redaction leaves out
    /// named with the reason.
    static func body(_ data: Data, contentType: String?, redaction: LogRedaction, maxLength: Int) -> String {
        if data.isEmpty { return "(empty body)" }
        let shown: Data
        switch redaction.redactBody(data, contentType: contentType) {
        case .shown(let body): shown = body
        case .omitted(let reason):
            guard String(data: data, encoding: .utf8) != nil else { return "<\(data.count) bytes of binary data>" }
            return "<\(data.count) bytes left out: \(reason)>"
        }
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
        case .stream(let body):
            return ["  <body streamed as it is produced\(body.length.map { ", \($0) bytes" } ?? "")>"]
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
