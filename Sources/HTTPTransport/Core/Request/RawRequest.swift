import Foundation

/// The resolved wire request: method, URL, ordered headers, body and time-out. This is what
/// request interceptors receive and return, and what the engine sends.
public struct RawRequest: Sendable {
    /// Where a request body comes from.
    public enum Body: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// A file, streamed from disk as the body.
        case file(URL)
        /// A `multipart/form-data` body; file parts are streamed from disk.
        case multipart([MultipartPart])
        /// Chunks produced while the body is sent, read once (`StreamedBody`).
        case stream(StreamedBody)
    }

    /// The HTTP method.
    public var method: HTTPRequest.HTTPMethod {
        get { storage.fields.method }
        _modify { yield &storage.fields.method }
    }
    /// The full URL, query included.
    public var url: URL {
        get { storage.fields.url }
        _modify {
            // (Forgotten first: a change that throws half-way must not leave the old text.)
            storage.fields.urlText = nil
            yield &storage.fields.url
        }
    }

    /// The URL's text (`absoluteString`), kept from resolving when it is the endpoint's as the
    /// session parsed it (`ParsedEndpoints`), so the engine does not make it again per send;
    /// forgotten when `url` changes.
    var urlText: String? {
        get { storage.fields.urlText }
        set { storage.fields.urlText = newValue }
    }

    /// Whether the engine keeps the request head as libcurl sent it (`RawResponse.sentHeaders`):
    /// set for a pipeline that records it (`RecordsSentRequestHead`).
    var keepsSentHead: Bool {
        get { storage.fields.keepsSentHead }
        set { storage.fields.keepsSentHead = newValue }
    }

    /// `url.absoluteString`, the kept text when there is one.
    var urlString: String { storage.fields.urlText ?? storage.fields.url.absoluteString }
    /// The header fields, in order; repeated names allowed.
    public var headers: HTTPHeaders {
        get { storage.fields.headers }
        _modify { yield &storage.fields.headers }
    }
    /// The body, if any.
    public var body: Body? {
        get { storage.fields.body }
        _modify { yield &storage.fields.body }
    }
    /// Seconds the whole exchange may take.
    public var timeout: TimeInterval {
        get { storage.fields.timeout }
        _modify { yield &storage.fields.timeout }
    }
    /// When set, the response body is written to this file instead of memory (see `Download`).
    public var download: Download? {
        get { storage.fields.download }
        _modify { yield &storage.fields.download }
    }
    /// Where the response body goes instead of memory or a download file (a stream's consumer:
    /// `HTTPRequest.streaming(_:)`, `HTTPTransport.stream(_:)`; see `ResponseBodyConsumer`).
    var bodyConsumer: (any ResponseBodyConsumer)? {
        get { storage.fields.bodyConsumer }
        set { storage.fields.bodyConsumer = newValue }
    }
    /// The WebSocket this request's handshake opens (`HTTPTransport.webSocket(_:configuration:)`).
    var webSocket: WebSocketLink? {
        get { storage.fields.webSocket }
        set { storage.fields.webSocket = newValue }
    }
    /// For a redirect hop, the previous hop's URL (`nil` on the first request): tells an
    /// interceptor that it runs for a redirect, e.g. to add credentials only for its own origin.
    public var redirectedFrom: URL? {
        get { storage.fields.redirectedFrom }
        _modify { yield &storage.fields.redirectedFrom }
    }
    /// The id that ties this request's log records together: set by `LogRequestInterceptor` when
    /// nil, and while tracing is on the trace id of the hop's span, so one id finds both. Not
    /// sent, unless an interceptor puts it in a header (`LogRequestInterceptor(addsRequestIDHeader: true)`).
    public var requestID: String? {
        get { storage.fields.requestID }
        _modify { yield &storage.fields.requestID }
    }

    /// The fields, kept behind one reference (copy-on-write): the pipeline hands a request from
    /// step to step and into every response, and each hand-over then costs one reference.
    private struct Fields: Sendable {
        var method: HTTPRequest.HTTPMethod
        var url: URL
        var headers: HTTPHeaders
        var body: Body?
        var timeout: TimeInterval
        var download: Download?
        var bodyConsumer: (any ResponseBodyConsumer)?
        var webSocket: WebSocketLink?
        var redirectedFrom: URL?
        var requestID: String?
        var urlText: String?
        var keepsSentHead = false
    }

    private var storage: CopyOnWrite<Fields>

    /// A wire request.
    public init(
        method: HTTPRequest.HTTPMethod = .get,
        url: URL,
        headers: HTTPHeaders = HTTPHeaders(),
        body: Body? = nil,
        timeout: TimeInterval = HTTPRequest.defaultTimeout,
        download: Download? = nil
    ) {
        storage = CopyOnWrite(Fields(method: method, url: url, headers: headers, body: body, timeout: timeout,
                                 download: download))
    }

    /// The value of a header (repeated values joined with `", "`), case-insensitively.
    public func value(forHTTPHeaderField name: String) -> String? { headers[name] }

    /// Replaces every value of a header; `nil` removes it.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) {
        headers[name] = value
    }

    /// Adds a value to a header, keeping the ones already there.
    public mutating func addValue(_ value: String, forHTTPHeaderField name: String) {
        headers.add(name, value)
    }

    /// The body when it is in memory; setting it replaces the body.
    public var httpBody: Data? {
        get {
            if case .data(let data) = body { return data }
            return nil
        }
        set { body = newValue.map(Body.data) }
    }

    /// Whether a body goes out: the request has one, or it is a POST, PUT or PATCH, which the
    /// engine sends with an empty body (`Content-Length: 0`) when it has none.
    var sendsBody: Bool {
        // (The three begin with "P": a GET is told by one byte, not three string comparisons.)
        body != nil || method.rawValue.utf8.first == UInt8(ascii: "P") && (method == .post || method == .put || method == .patch)
    }
}

/// Asks the engine to write the response body to a file: into `<destination>.part` beside
/// `destination`, renamed over it only when the exchange succeeds. The part file is created
/// afresh for this download (mode 0600, never through a symbolic link); the finished file gets
/// the usual permissions (0644 less the umask).
///
/// The file may hold at most `maxSize` bytes, counted as written (after libcurl decodes gzip and
/// the like): more fails with `.responseTooLarge` and removes the part file.
///
/// ```swift
/// // A large file, past the session's cap (100 MiB by default):
/// let request = HTTPRequest(endpoint: "https://example.com/disk.iso")
///     .downloading(to: destination, resume: true, maxSize: 8 << 30)
/// ```
public struct Download: Sendable, Hashable {
    /// The file the body ends up in.
    public var destination: URL
    /// Continue the partial file an earlier attempt at the same URL left, with a `Range` request
    /// when the server allows it.
    public var resume: Bool
    /// The most bytes the file may hold; `nil`: the session's `maxResponseSize`. Negative
    /// values count as 0.
    public var maxSize: Int64?

    /// A download to `destination`.
    public init(destination: URL, resume: Bool = false, maxSize: Int64? = nil) {
        self.destination = destination
        self.resume = resume
        self.maxSize = maxSize
    }
}

/// One part of a `multipart/form-data` body.
public struct MultipartPart: Sendable, Hashable {
    /// Where a part's content comes from.
    public enum Content: Sendable, Hashable {
        /// Bytes in memory.
        case data(Data)
        /// A file, streamed from disk.
        case file(URL)
    }

    /// The form field name.
    public var name: String
    /// The content.
    public var content: Content
    /// The file name announced for the part, if any.
    public var fileName: String?
    /// The part's content type, if any.
    public var mimeType: String?

    /// A part.
    public init(name: String, content: Content, fileName: String? = nil, mimeType: String? = nil) {
        self.name = name
        self.content = content
        self.fileName = fileName
        self.mimeType = mimeType
    }
}
