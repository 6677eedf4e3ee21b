import Foundation

/// How bodies are written into an archive and read back: UTF-8 text, or base64 for media that
/// is not text, so pictures replay byte for byte; secrets hidden by `LogRedaction.redactBody`,
/// which leaves out what it cannot read field by field (the entry's comment says why).
enum ArchiveBody {
    static let base64 = "base64"

    /// A body as recorded: its text, `"base64"` when the text is base64, and a comment when the
    /// body was left out (the text is then empty).
    struct Recorded {
        var text: String
        var encoding: String?
        var comment: String?
    }

    static func recorded(_ data: Data, contentType: String?, redaction: LogRedaction) -> Recorded {
        switch redaction.redactBody(data, contentType: contentType) {
        case .omitted(let reason):
            return Recorded(text: "", comment: "the body (\(data.count) bytes) was left out: \(reason)")
        case .shown(let shown):
            guard !shown.contains(0), let text = String(data: shown, encoding: .utf8) else {
                return Recorded(text: shown.base64EncodedString(), encoding: base64)
            }
            return Recorded(text: text)
        }
    }

    /// The bytes of a recorded body; nil when `encoding` is base64 and `text` is not (line
    /// breaks and spaces, which some writers wrap base64 with, are allowed).
    static func data(text: String, encoding: String?) -> Data? {
        guard encoding?.lowercased() == base64 else { return Data(text.utf8) }
        return Data(base64Encoded: text.filter { !$0.isWhitespace })
    }
}

extension ArchivePostData {
    /// The request body as HAR's `postData`, or nil for a request without one. Bodies streamed
    /// from a file are not read (they may be large): only their type is recorded.
    init?(_ request: RawRequest, redaction: LogRedaction) {
        guard let body = request.body else { return nil }
        let contentType = request.headers["Content-Type"]
        switch body {
        case .data(let data):
            let body = ArchiveBody.recorded(data, contentType: contentType, redaction: redaction)
            self.init(mimeType: contentType ?? "",
                      params: body.comment == nil ? Self.formParams(body.text, contentType: contentType, encoding: body.encoding) : [],
                      text: body.text, comment: body.comment, encoding: body.encoding)
        case .file:
            self.init(mimeType: contentType ?? "", params: [], text: "", comment: "the body was read from a file, not recorded")
        case .stream:
            self.init(mimeType: contentType ?? "", params: [], text: "", comment: "the body was streamed as it was produced, not recorded")
        case .multipart(let parts):
            self.init(mimeType: contentType ?? "multipart/form-data", params: parts.map { Self.param($0, redaction: redaction) },
                      text: "", comment: "multipart/form-data: the parts are in params")
        }
    }

    /// The fields of a form body (already redacted), percent-decoded.
    private static func formParams(_ text: String, contentType: String?, encoding: String?) -> [ArchiveParam] {
        guard encoding == nil, LogRedaction.mediaType(contentType) == "application/x-www-form-urlencoded" else { return [] }
        return text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ part: Substring) -> String {
                let plain = part.replacingOccurrences(of: "+", with: " ")
                return plain.removingPercentEncoding ?? plain
            }
            return ArchiveParam(name: decoded(parts[0]), value: parts.count > 1 ? decoded(parts[1]) : "")
        }
    }

    /// A multipart part: its name, file name and type; the value of a short text part (hidden
    /// when its name is secret), never a file's content.
    private static func param(_ part: MultipartPart, redaction: LogRedaction) -> ArchiveParam {
        var param = ArchiveParam(name: part.name, fileName: part.fileName, contentType: part.mimeType)
        guard part.fileName == nil, case .data(let data) = part.content, data.count <= 64 * 1024 else { return param }
        if redaction.hidesField(part.name) {
            param.value = LogRedaction.placeholder
        } else if case .shown(let shown) = redaction.redactBody(data, contentType: part.mimeType) {
            param.value = String(data: shown, encoding: .utf8)
        }
        return param
    }
}
