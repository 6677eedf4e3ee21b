import Foundation
import HTTPTransport

/// The library calls this target makes (a rename in the library is fixed here only).
enum Library {
    static let redaction = LogRedaction.default

    /// Text with the secrets of every URL in it hidden.
    static func redactedText(_ text: String) -> String { redaction.redactedText(text) }

    /// A URL's text with its secrets hidden.
    static func redactedURL(_ text: String) -> String { redaction.redactedURL(text) }

    /// A header value as the log shows it.
    static func headerValue(_ value: String, name: String) -> String { redaction.headerValue(value, name: name) }

    /// A body as the log shows it.
    static func redactedBody(_ body: Data, contentType: String) -> Data { redaction.redactedBody(body, contentType: contentType) }
}
