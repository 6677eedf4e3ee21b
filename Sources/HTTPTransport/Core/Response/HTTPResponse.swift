import Foundation
import Synchronization

/// A successful exchange: status, headers, body, the request as it was sent, and metrics.
public struct HTTPResponse: Sendable {
    /// The response status.
    public let httpStatus: HTTPStatusCode
    /// The response headers in order, every value kept.
    public var rawHeaders: HTTPHeaders { @inlinable get { raw.headers } }
    /// The response body (`nil` when there was none, or when it was written to `fileURL`).
    public var body: Data? { @inlinable get { raw.data } }
    /// The request as it was sent, after interceptors.
    public var request: RawRequest { @inlinable get { raw.request } }
    /// Timing and size figures of the exchange.
    public var metrics: TransferMetrics { @inlinable get { raw.metrics } }
    /// Where the body was written, for a download to a file.
    public var fileURL: URL? { @inlinable get { raw.fileURL } }

    /// The exchange as the pipeline ended it, kept as it is (one reference, no field copied);
    /// its storage also keeps the headers dictionary made on first read.
    @usableFromInline let raw: RawResponse

    /// A response value (used by the pipeline, and by tests building responses by hand).
    public init(
        httpStatus: HTTPStatusCode,
        headers: HTTPHeaders = HTTPHeaders(),
        body: Data? = nil,
        request: RawRequest,
        metrics: TransferMetrics = TransferMetrics(),
        fileURL: URL? = nil
    ) {
        self.httpStatus = httpStatus
        raw = RawResponse(request: request, statusCode: httpStatus, headers: headers, data: body, metrics: metrics, fileURL: fileURL)
    }

    /// The successful response `raw` (its error nil), kept as it is.
    init(httpStatus: HTTPStatusCode, raw: RawResponse) {
        self.httpStatus = httpStatus
        self.raw = raw
    }

    /// One entry per header name; repeated values joined with `", "`.
    public var headers: [String: String] { raw.headerDictionary }

    /// The value of a header, case-insensitively (repeated values joined with `", "`).
    public func header(named name: String) -> String? { rawHeaders[name] }

    /// Every value of a header, in order (e.g. each `Set-Cookie`).
    public func headerValues(for name: String) -> [String] { rawHeaders.values(name) }

    /// The file name the server suggests in `Content-Disposition` (`filename*=` preferred),
    /// safe to use inside a directory of your choosing: only its last path component, with
    /// every control, format (bidi overrides, zero-width) and line/paragraph-separator
    /// character removed, never starting with `.` or `-`; `nil` when there is none or nothing
    /// usable is left (`..`, only dots, only invisible characters).
    public var suggestedFilename: String? {
        header(named: "Content-Disposition").flatMap(ContentDisposition.suggestedFilename(from:))
    }

    /// The body parsed as JSON (any top-level value); `nil` for an empty body.
    /// - Throws: the parser's error when the body is not JSON.
    public func getJSON() throws -> Any? {
        guard let body, !body.isEmpty else { return nil }
        return try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
    }

    /// The body parsed as a JSON object; other JSON values are wrapped as `["data": value]`.
    /// `nil` for an empty body.
    /// - Throws: the parser's error when the body is not JSON.
    public func getJSONDictionary() throws -> [String: Any]? {
        guard let json = try getJSON() else { return nil }
        if let dictionary = json as? [String: Any] { return dictionary }
        return ["data": json]
    }

    /// The body as UTF-8 text; `nil` when there is no body or it is not valid UTF-8.
    public func getString() -> String? {
        guard let body else { return nil }
        return String(validating: body, as: UTF8.self)
    }

    /// The body decoded as JSON into `T`.
    /// - Throws: `DecodingError`, or an `HTTPTransportError` with `.badResponse` when there is no body.
    public func decode<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        guard let body else {
            throw HTTPTransportError(code: .badResponse, message: "The response has no body to decode.",
                                     url: request.url.absoluteString, httpStatusCode: httpStatus)
        }
        return try decoder.decode(type, from: body)
    }
}

/// A response's `headers` dictionary, made once, on first read, by whichever thread asks first
/// (a race makes it twice and keeps one): lets the immutable `Sendable` response keep what it
/// derives. One word in the response's storage; nothing else until `headers` is read.
struct HeaderDictionaryCache: ~Copyable, Sendable {
    private final class Box {
        let dictionary: [String: String]
        init(_ dictionary: [String: String]) { self.dictionary = dictionary }
    }

    /// The address of the retained `Box`, once made (0 before).
    private let slot = Atomic<UInt>(0)

    deinit {
        if let stored = Self.box(at: slot.load(ordering: .acquiring)) { stored.release() }
    }

    /// Forgets the dictionary (the headers it was made from changed).
    func clear() {
        guard slot.load(ordering: .relaxed) != 0 else { return }
        if let stored = Self.box(at: slot.exchange(0, ordering: .acquiringAndReleasing)) { stored.release() }
    }

    func value(_ make: () -> [String: String]) -> [String: String] {
        if let stored = Self.box(at: slot.load(ordering: .acquiring)) { return stored.takeUnretainedValue().dictionary }
        let made = Unmanaged.passRetained(Box(make()))
        let address = UInt(bitPattern: made.toOpaque())
        let (exchanged, original) = slot.compareExchange(expected: 0, desired: address, ordering: .acquiringAndReleasing)
        guard !exchanged, let winner = Self.box(at: original) else { return made.takeUnretainedValue().dictionary }
        made.release()  // another thread stored its own first
        return winner.takeUnretainedValue().dictionary
    }

    private static func box(at address: UInt) -> Unmanaged<Box>? {
        UnsafeMutableRawPointer(bitPattern: address).map { Unmanaged<Box>.fromOpaque($0) }
    }
}
