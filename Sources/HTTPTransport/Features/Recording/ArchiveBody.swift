import Foundation

/// How bodies are written into an archive and read back: UTF-8 text (secret JSON and form
/// fields hidden, as in the logs), or base64 for anything else, so binary bodies replay byte
/// for byte.
enum ArchiveBody {
    static let base64 = "base64"

    /// The body as recorded: `(text, nil)` for UTF-8 text without NUL bytes, redacted;
    /// `(base64, "base64")` otherwise.
    static func text(of data: Data, contentType: String?, redaction: LogRedaction) -> (String, String?) {
        guard !data.contains(0), String(data: data, encoding: .utf8) != nil else {
            return (data.base64EncodedString(), base64)
        }
        return (String(decoding: redaction.redactedBody(data, contentType: contentType), as: UTF8.self), nil)
    }

    /// The bytes of a recorded body; nil when `encoding` is base64 and `text` is not.
    static func data(text: String, encoding: String?) -> Data? {
        guard encoding?.lowercased() == base64 else { return Data(text.utf8) }
        return Data(base64Encoded: text, options: .ignoreUnknownCharacters)
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
            let (text, encoding) = ArchiveBody.text(of: data, contentType: contentType, redaction: redaction)
            self.init(mimeType: contentType ?? "", params: Self.formParams(text, contentType: contentType, encoding: encoding),
                      text: text, encoding: encoding)
        case .file:
            self.init(mimeType: contentType ?? "", params: [], text: "", comment: "the body was read from a file, not recorded")
        case .multipart(let parts):
            self.init(mimeType: contentType ?? "multipart/form-data", params: parts.map { Self.param($0, redaction: redaction) },
                      text: "", comment: "multipart/form-data: the parts are in params")
        }
    }

    /// The fields of a form body (already redacted), percent-decoded.
    private static func formParams(_ text: String, contentType: String?, encoding: String?) -> [ArchiveParam] {
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard encoding == nil, mediaType == "application/x-www-form-urlencoded" else { return [] }
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
        if part.fileName == nil, case .data(let data) = part.content, data.count <= 64 * 1024,
           let text = String(data: data, encoding: .utf8) {
            param.value = redaction.hidesField(part.name) ? LogRedaction.placeholder : text
        }
        return param
    }
}
