import Foundation

/// What the engine received, as response interceptors see it. Interceptors return a modified
/// copy: they may enrich, clear or set `error`.
public struct RawResponse: Sendable {
    /// The request as it was sent (after request interceptors).
    public var request: RawRequest {
        get { storage.fields.request }
        _modify { yield &storage.fields.request }
    }
    /// The response status, or `nil` when no response arrived.
    public var statusCode: HTTPStatusCode? {
        get { storage.fields.statusCode }
        _modify { yield &storage.fields.statusCode }
    }
    /// The response headers in order, every value kept.
    public var headers: HTTPHeaders {
        get { storage.fields.headers }
        _modify { yield &storage.fields.headers }
    }
    /// The response body (`nil` when no response arrived or the body went to a file).
    public var data: Data? {
        get { storage.fields.data }
        _modify { yield &storage.fields.data }
    }
    /// The failure so far, if any: a transport fault, or a validation error.
    public var error: HTTPTransportError? {
        get { storage.fields.error }
        _modify { yield &storage.fields.error }
    }
    /// Timing and size figures.
    public var metrics: TransferMetrics {
        get { storage.fields.metrics }
        _modify { yield &storage.fields.metrics }
    }
    /// Where the body was written, when the request asked for a download to a file.
    public var fileURL: URL? {
        get { storage.fields.fileURL }
        _modify { yield &storage.fields.fileURL }
    }

    /// The fields, kept behind one reference (copy-on-write): a response passes through the
    /// engine, the pipeline's steps and every interceptor, and each hand-over then costs one
    /// reference instead of a copy of every field.
    private struct Fields: Sendable {
        var request: RawRequest
        var statusCode: HTTPStatusCode?
        var headers: HTTPHeaders
        var data: Data?
        var error: HTTPTransportError?
        var metrics: TransferMetrics
        var fileURL: URL?
    }

    private var storage: CopyOnWrite<Fields>

    /// Whether `request` went to the engine: `false` when a request interceptor failed the hop
    /// first (a retrier is told what the failed attempt sent, if anything).
    var wasSent = true

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
        storage = CopyOnWrite(Fields(request: request, statusCode: statusCode, headers: headers, data: data, error: error,
                                 metrics: metrics, fileURL: fileURL))
    }
}
