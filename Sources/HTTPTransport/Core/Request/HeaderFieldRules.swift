import Foundation

/// The rules for text that ends up in a header line (a header's name or value, a cookie's name
/// or value, a multipart part's name, file name or MIME type), so that nothing a caller passes
/// can add, split or cut a line: a CR or LF would start a new header (or part header), and a
/// NUL cuts the text where libcurl reads it as a C string. One place for every check, each
/// refusing with `.encodingFailed` before anything is sent.
///
/// ```swift
/// try HeaderFieldRules.check(value: value, of: "Header 'X-Note'", url: url)
/// guard HeaderFieldRules.isToken(name) else { … }
/// ```
enum HeaderFieldRules {
    /// Whether `value` can stand in a header line: no CR, LF or NUL.
    static func isValidValue(_ value: String) -> Bool {
        !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    /// Whether `name` is an RFC 9110 token, as header and cookie names must be: one or more
    /// visible ASCII characters other than the separators `"(),/:;<=>?@[\]{}`.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(isTokenByte)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21...0x7E:
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: ","), UInt8(ascii: "/"),
                 UInt8(ascii: ":"), UInt8(ascii: ";"), UInt8(ascii: "<"), UInt8(ascii: "="), UInt8(ascii: ">"),
                 UInt8(ascii: "?"), UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "\\"), UInt8(ascii: "]"),
                 UInt8(ascii: "{"), UInt8(ascii: "}"):
                return false
            default:
                return true
            }
        default:
            return false
        }
    }

    /// Refuses `value` unless `isValidValue(_:)`; `what` names it in the message
    /// (`"Header 'X-Note'"`, `"The MIME type of multipart part 'file'"`).
    static func check(value: String, of what: String, url: String?) throws(HTTPTransportError) {
        guard isValidValue(value) else {
            throw HTTPTransportError(
                code: .encodingFailed,
                message: "\(what) contains a line break (CR or LF) or a NUL character, which would change the "
                    + "request's header lines; remove them before sending.",
                url: url)
        }
    }

    /// Refuses a multipart body whose part names, file names or MIME types are not valid in a
    /// part's header lines.
    static func check(parts: [MultipartPart], url: String?) throws(HTTPTransportError) {
        for part in parts {
            let label = "multipart part \(quoted(part.name))"
            try check(value: part.name, of: "The name of " + label, url: url)
            if let fileName = part.fileName { try check(value: fileName, of: "The file name of " + label, url: url) }
            if let mimeType = part.mimeType { try check(value: mimeType, of: "The MIME type of " + label, url: url) }
        }
    }

    /// `text` in quotes with its control characters escaped, for a message.
    private static func quoted(_ text: String) -> String {
        "'" + text.unicodeScalars.map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }
            .joined() + "'"
    }
}
