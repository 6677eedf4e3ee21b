import Foundation

/// What the engine received, as response interceptors see it. Interceptors return a modified
/// copy: they may enrich, clear or set `error`.
public struct RawResponse: Sendable {
    /// The request as it was sent (after request interceptors).
    public var request: RawRequest
    /// The response status, or `nil` when no response arrived.
    public var statusCode: HTTPStatusCode?
    /// The response headers in order, every value kept.
    public var headers: HTTPHeaders
    /// The response body (`nil` when no response arrived or the body went to a file).
    public var data: Data?
    /// The failure so far, if any: a transport fault, or a validation error.
    public var error: HTTPTransportError?
    /// Timing and size figures.
    public var metrics: TransferMetrics
    /// Where the body was written, when the request asked for a download to a file.
    public var fileURL: URL?

    /// A response value.
    public init(
        request: RawRequest,
        statusCode: HTTPStatusCode? = nil,
        headers: HTTPHeaders = HTTPHeaders(),
        data: Data? = nil,
        error: HTTPTransportError? = nil,
        metrics: TransferMetrics = TransferMetrics(),
        fileURL: URL? = nil
    ) {
        self.request = request
        self.statusCode = statusCode
        self.headers = headers
        self.data = data
        self.error = error
        self.metrics = metrics
        self.fileURL = fileURL
    }
}
