import Foundation

/// What the engine received, as response interceptors see it. Interceptors return a modified
/// copy: they may enrich, clear or set `error`.
public struct RawResponse: Sendable {
    /// The request as it was sent (after request interceptors).
    public var request: RawRequest {
        @inlinable get { storage.fields.request }
        _modify { yield &fields.request }
    }
    /// The response status, or `nil` when no response arrived.
    public var statusCode: HTTPStatusCode? {
        @inlinable get { storage.fields.statusCode }
        _modify { yield &fields.statusCode }
    }
    /// The response headers in order, every value kept.
    public var headers: HTTPHeaders {
        @inlinable get { storage.fields.headers }
        _modify { yield &fields.headers }
    }
    /// The response body (`nil` when no response arrived or the body went to a file).
    public var data: Data? {
        @inlinable get { storage.fields.data }
        _modify { yield &fields.data }
    }
    /// The failure so far, if any: a transport fault, or a validation error.
    public var error: HTTPTransportError? {
        @inlinable get { storage.fields.error }
        _modify { yield &fields.error }
    }
    /// Timing and size figures.
    public var metrics: TransferMetrics {
        @inlinable get { storage.fields.metrics }
        _modify { yield &fields.metrics }
    }
    /// Where the body was written, when the request asked for a download to a file.
    public var fileURL: URL? {
        @inlinable get { storage.fields.fileURL }
        _modify { yield &fields.fileURL }
    }

    @usableFromInline struct Fields: Sendable {
        @usableFromInline var request: RawRequest
        @usableFromInline var statusCode: HTTPStatusCode?
        @usableFromInline var headers: HTTPHeaders
        @usableFromInline var data: Data?
        @usableFromInline var error: HTTPTransportError?
        @usableFromInline var metrics: TransferMetrics
        @usableFromInline var fileURL: URL?
        /// The request's header lines as libcurl sent them (`RawRequest.keepsSentHead`).
        @usableFromInline var sentHeaders: HTTPHeaders? = nil
    }

    /// The fields, kept behind one reference (copy-on-write): a response passes through the
    /// engine, the pipeline's steps and every interceptor, and each hand-over then costs one
    /// reference instead of a copy of every field. An `HTTPResponse` keeps the same object, with
    /// the headers dictionary it derives, so that the object the engine made is the only one
    /// a response needs. Changed only while uniquely referenced, so sharing it is safe; no two
    /// accesses to `fields` can overlap, so it opts out of the exclusivity bookkeeping. (The
    /// getters read it from the caller's code, `@inlinable`: a read of a response's field is a
    /// load, not a call and a copy of the field's struct.)
    @usableFromInline final class Storage: @unchecked Sendable {
        @usableFromInline @exclusivity(unchecked) var fields: Fields
        /// `HTTPResponse.headers` as made from `fields.headers` (cleared when the fields change).
        let headerDictionary = HeaderDictionaryCache()

        init(_ fields: Fields) { self.fields = fields }
    }

    @usableFromInline var storage: Storage

    private var fields: Fields {
        _read { yield storage.fields }
        _modify {
            if !isKnownUniquelyReferenced(&storage) {
                storage = Storage(storage.fields)
            } else {
                storage.headerDictionary.clear()
            }
            yield &storage.fields
        }
    }

    /// The headers as one dictionary (`HTTPResponse.headers`), made once for these fields.
    var headerDictionary: [String: String] {
        let storage = storage
        return storage.headerDictionary.value { storage.fields.headers.dictionary }
    }

    /// The request's header fields as they went on the wire, libcurl's own (`Host`,
    /// `User-Agent`, `Accept-Encoding`, …) included; nil unless the request asked for them
    /// (`RawRequest.keepsSentHead`) and a head was sent.
    var sentHeaders: HTTPHeaders? {
        get { storage.fields.sentHeaders }
        set { fields.sentHeaders = newValue }
    }

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
        storage = Storage(Fields(request: request, statusCode: statusCode, headers: headers, data: data, error: error,
                                 metrics: metrics, fileURL: fileURL))
    }
}
