import Foundation

// The HAR 1.2 objects `HTTPArchiveRecorder` writes (http://www.softwareishard.com/blog/har-12-spec/),
// field for field and in the specification's order. Optional fields are left out when unknown;
// sizes and timings that do not apply are -1, as the specification asks. Fields of our own start
// with `_`, as the specification requires of custom fields.

/// The whole file: `{"log": …}`.
struct ArchiveDocument: Encodable {
    var log: ArchiveLog
}

struct ArchiveLog: Encodable {
    var version = "1.2"
    var creator = ArchiveCreator()
    /// Optional in HAR 1.2, but readers (haralyzer's `browser`) expect it: the library again.
    var browser = ArchiveCreator()
    /// One page for the whole recording, so readers that group entries by page find them all.
    var pages: [ArchivePage]
    var entries: [ArchiveEntry]
}

struct ArchiveCreator: Encodable {
    var name = "HTTPTransport"
    var version = HTTPTransport.version
}

/// A page: a recording has one, `ArchivePage.recordingID`, which every entry's `pageref` names.
struct ArchivePage: Encodable {
    static let recordingID = "page_1"

    var startedDateTime: String
    var id = recordingID
    var title = "HTTPTransport recording"
    /// No page loads: both timings are -1, as the specification asks for what does not apply.
    var pageTimings = ArchivePageTimings()
}

struct ArchivePageTimings: Encodable {
    var onContentLoad = -1
    var onLoad = -1
}

/// One exchange: one hop of a send.
struct ArchiveEntry: Encodable, Sendable {
    var pageref = ArchivePage.recordingID
    /// ISO 8601 with milliseconds, in UTC.
    var startedDateTime: String
    /// Milliseconds: the sum of the non-negative `timings` but `ssl` (which `connect` includes).
    var time: Double
    var request: ArchiveRequest
    var response: ArchiveResponse
    /// Nothing known about the browser-style cache state before and after: an empty object.
    var cache = ArchiveCache()
    var timings: ArchiveTimings
    var serverIPAddress: String?
    /// The local port of the connection: requests on one reused connection share it.
    var connection: String?
    var comment: String?
}

struct ArchiveRequest: Encodable, Sendable {
    var method: String
    var url: String
    var httpVersion: String
    var cookies: [ArchiveCookie]
    var headers: [ArchiveNameValue]
    var queryString: [ArchiveNameValue]
    var postData: ArchivePostData?
    var headersSize = -1
    var bodySize: Int
    var comment: String?
}

struct ArchiveResponse: Encodable, Sendable {
    var status: Int
    var statusText: String
    var httpVersion: String
    var cookies: [ArchiveCookie]
    var headers: [ArchiveNameValue]
    var content: ArchiveContent
    var redirectURL: String
    var headersSize = -1
    var bodySize: Int
    var comment: String?
    /// Why the exchange failed (as browsers write it for a request that got no response).
    var error: String?
    /// The failure's `HTTPTransportError.Code` name, so a replay fails the same way.
    var errorCode: String?

    enum CodingKeys: String, CodingKey {
        case status, statusText, httpVersion, cookies, headers, content, redirectURL, headersSize, bodySize, comment
        case error = "_error"
        case errorCode = "_errorCode"
    }
}

/// A header or a query parameter.
struct ArchiveNameValue: Encodable, Sendable, Equatable {
    var name: String
    var value: String
}

struct ArchiveCookie: Encodable, Sendable, Equatable {
    var name: String
    var value: String
    var path: String?
    var domain: String?
    /// ISO 8601.
    var expires: String?
    var httpOnly: Bool?
    var secure: Bool?
}

struct ArchivePostData: Encodable, Sendable {
    var mimeType: String
    /// Form fields (`application/x-www-form-urlencoded`) and multipart parts; empty otherwise.
    var params: [ArchiveParam]
    var text: String
    var comment: String?
    /// `"base64"` when `text` is a binary body in base64 (the specification has no such field
    /// for requests; `content.encoding` is its counterpart for responses).
    var encoding: String?

    enum CodingKeys: String, CodingKey {
        case mimeType, params, text, comment
        case encoding = "_encoding"
    }
}

struct ArchiveParam: Encodable, Sendable {
    var name: String
    var value: String?
    var fileName: String?
    var contentType: String?
}

struct ArchiveContent: Encodable, Sendable {
    /// Bytes of the body as received (after decompression).
    var size: Int
    var mimeType: String
    var text: String?
    /// `"base64"` for a body that is not UTF-8 text.
    var encoding: String?
    var comment: String?
}

struct ArchiveCache: Encodable, Sendable {}

/// Milliseconds; -1 where a phase did not happen (a reused connection has no DNS or connect).
struct ArchiveTimings: Encodable, Sendable {
    var blocked: Double = -1
    var dns: Double
    var connect: Double
    var send: Double
    var wait: Double
    var receive: Double
    var ssl: Double
}
