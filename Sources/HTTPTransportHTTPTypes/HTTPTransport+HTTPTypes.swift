import Foundation
import HTTPTransport
import HTTPTypes

extension HTTPTransport {
    /// Sends a swift-http-types request (as Hummingbird, swift-openapi-runtime and
    /// AsyncHTTPClient build them) without blocking the caller's thread, and returns the response
    /// whatever its status, with its body. Only a failure without a response throws (no
    /// connection, a time-out, TLS, an interceptor's refusal, …).
    ///
    /// The request goes through the same pipeline as any send: interceptors, cookies, redirects,
    /// retries, the cache and pins apply. Its method is sent as written (`PURGE`, `PROPFIND`),
    /// and its header fields in order, repeated names kept.
    ///
    /// ```swift
    /// import HTTPTransportHTTPTypes
    /// let request = HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/v1/items")
    /// let (response, body) = try await transport.send(request, body: nil)
    /// ```
    public func send(_ request: HTTPTypes.HTTPRequest, body: Data? = nil) async throws(HTTPTransportError) -> (HTTPTypes.HTTPResponse, Data) {
        let sent = try HTTPTypesConversion.request(request, body: body)
        return try HTTPTypesConversion.answer(await resultOfAsyncSend(sent))
    }

    /// The blocking form of `send(_:body:)`, for worker threads: the same rules, on the calling thread.
    public func send(request: HTTPTypes.HTTPRequest, body: Data? = nil) throws(HTTPTransportError) -> (HTTPTypes.HTTPResponse, Data) {
        let sent = try HTTPTypesConversion.request(request, body: body)
        return try HTTPTypesConversion.answer(send(request: sent))
    }

    private func resultOfAsyncSend(_ request: HTTPTransportRequest) async -> HTTPTransport.Result {
        do {
            return .success(response: try await send(request))
        } catch {
            return .failure(error: error)
        }
    }
}

/// Between swift-http-types' values and the library's.
enum HTTPTypesConversion {
    /// The library's request for a swift-http-types request and its body.
    static func request(_ request: HTTPTypes.HTTPRequest, body: Data?) throws(HTTPTransportError) -> HTTPTransportRequest {
        let scheme = request.scheme ?? "https"
        guard let authority = request.authority, !authority.isEmpty else {
            throw HTTPTransportError(code: .invalidURL, message: "The request has no authority (host) to send it to.",
                                     url: request.path)
        }
        let endpoint = "\(scheme)://\(authority)\(request.path ?? "/")"
        guard let method = HTTPTransportRequest.HTTPMethod(rawValue: request.method.rawValue) else {
            throw HTTPTransportError(code: .encodingFailed, message: "'\(request.method.rawValue)' is not a method token.",
                                     url: endpoint)
        }
        var sent = HTTPTransportRequest(httpMethod: method, endpoint: endpoint)
        sent.headerFields = HTTPHeaders(request.headerFields)
        if let body { sent = sent.uploading(data: body) }
        return sent
    }

    /// Every status as a response: a failure that carries one (default validation, or an
    /// interceptor that set an error on a response) is turned back into it.
    static func answer(_ result: HTTPTransport.Result) throws(HTTPTransportError) -> (HTTPTypes.HTTPResponse, Data) {
        switch result {
        case .success(let response):
            return (HTTPTypes.HTTPResponse(status: status(response.httpStatus), headerFields: HTTPFields(response.rawHeaders)),
                    response.body ?? Data())
        case .failure(let error):
            guard error.code == .httpStatus, let code = error.httpStatusCode else { throw error }
            return (HTTPTypes.HTTPResponse(status: status(code), headerFields: HTTPFields(error.responseHeaders)),
                    error.responseBodyData ?? Data())
        }
    }

    private static func status(_ code: HTTPStatusCode) -> HTTPTypes.HTTPResponse.Status {
        // swift-http-types holds 0...999; a status line is three digits.
        HTTPTypes.HTTPResponse.Status(code: min(max(code.rawValue, 0), 999), reasonPhrase: code.reasonPhrase)
    }
}
