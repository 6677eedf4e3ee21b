import Foundation
import HTTPTransport
import HTTPTypes
import OpenAPIRuntime

/// The library's request for an operation's swift-http-types request and body.
enum OpenAPIRequest {
    static func make(_ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL) throws -> HTTPTransportRequest {
        let endpoint = url(baseURL, path: request.path ?? "")
        guard let method = HTTPTransportRequest.HTTPMethod(rawValue: request.method.rawValue) else {
            throw HTTPTransportError(code: .encodingFailed, message: "'\(request.method.rawValue)' is not a method token.", url: endpoint)
        }
        var sent = HTTPTransportRequest(httpMethod: method, endpoint: endpoint)
        sent.headerFields = HTTPHeaders(request.headerFields)
        if let body {
            // Streamed up as the client produces it, of its declared length or chunked; never
            // sent twice (no retry, no 307/308 once read).
            let length: Int64? = if case .known(let count) = body.length { count } else { nil }
            sent = sent.uploading(stream: body.map { Data($0) }, length: length)
        }
        return sent
    }

    /// `baseURL` with the operation's path (and query) after it, one `/` between them.
    static func url(_ baseURL: URL, path: String) -> String {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        if path.isEmpty { return base }
        return path.hasPrefix("/") ? base + path : base + "/" + path
    }
}

/// A streamed response body for the generated client.
enum OpenAPIResponseBody {
    /// The stream's body as an `HTTPBody` of the declared length, iterated once; dropping it
    /// unread drops the stream, which stops the transfer. A coded body arrives decoded, so its
    /// `Content-Length` (the coded size) is not its length.
    static func body(of stream: HTTPResponseStream) -> HTTPBody {
        let coded = stream.headerValues(for: "Content-Encoding").joined(separator: ",").split(separator: ",").contains { member in
            let name = member.trimmingCharacters(in: .whitespaces).lowercased()
            return !name.isEmpty && name != "identity"
        }
        let declared = coded ? nil : stream.header(named: "Content-Length").flatMap(Int64.init)
        let length: HTTPBody.Length = declared.map { .known($0) } ?? .unknown
        return HTTPBody(stream.body, length: length, iterationBehavior: .single)
    }
}
