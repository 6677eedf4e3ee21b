import Foundation
import HTTPTransport
import HTTPTypes
import OpenAPIRuntime

/// The library's request for an operation's swift-http-types request and body.
enum OpenAPIRequest {
    /// The largest request body read into memory before it is sent.
    static let maxBufferedBody = 1 << 30

    static func make(_ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL) async throws -> HTTPTransportRequest {
        let endpoint = url(baseURL, path: request.path ?? "")
        guard let method = HTTPTransportRequest.HTTPMethod(rawValue: request.method.rawValue) else {
            throw HTTPTransportError(code: .encodingFailed, message: "'\(request.method.rawValue)' is not a method token.", url: endpoint)
        }
        var sent = HTTPTransportRequest(httpMethod: method, endpoint: endpoint)
        sent.headerFields = HTTPHeaders(request.headerFields)
        if let body {
            let data: Data
            do {
                data = try await Data(collecting: body, upTo: maxBufferedBody)
            } catch {
                throw HTTPTransportError(code: .encodingFailed, message: "Reading the request body failed: \(error)", url: endpoint)
            }
            sent = sent.uploading(data: data)
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
    /// unread drops the stream, which stops the transfer.
    static func body(of stream: HTTPResponseStream) -> HTTPBody {
        let length: HTTPBody.Length = stream.header(named: "Content-Length").flatMap(Int64.init).map { .known($0) } ?? .unknown
        return HTTPBody(stream.body, length: length, iterationBehavior: .single)
    }
}
