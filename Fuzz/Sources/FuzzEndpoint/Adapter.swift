import Foundation
@testable import HTTPTransport

/// The library calls this target makes (a rename in the library is fixed here only).
enum Library {
    /// A request's endpoint joined to its base request's (`HTTPRequest(endpoint:base:)`).
    static func join(_ endpoint: String, base: String?) -> String { RequestBase.endpoint(endpoint, base: base) }

    /// The URL a send resolves an endpoint to, or the error message.
    static func parse(_ endpoint: String) -> Result<URL, HTTPTransportError> {
        Result { () throws(HTTPTransportError) in try RequestResolver.parseURL(endpoint) }
    }

    /// A URL with an encoded query appended to its own.
    static func appendingQuery(_ query: String, to url: URL) -> URL { RequestResolver.appendQuery(query, to: url) }

    /// Percent-encoding as the URL/form encoder writes a key or value.
    static func queryEscaped(_ text: String) -> String { URLQueryEncoder.escape(text) }
}
