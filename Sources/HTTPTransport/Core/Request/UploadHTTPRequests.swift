import Foundation

/// A request whose body is the given bytes (`POST` by default). Only `.url` and `.custom`
/// parameter sets apply; `.json`, `.propertyList` and `.form` sets are ignored.
public struct DataUploadHTTPRequest: HTTPRequestEnvelope, UploadRequest {
    public var httpMethod: HTTPRequest.HTTPMethod = .post
    public var endpoint = ""
    public var headers: [String: String] = [:]
    public var parameters: [HTTPRequestParameters] = []
    public var requestInterceptors: [any HTTPRequestInterceptor] = []
    public var responseInterceptors: [any HTTPResponseInterceptor] = []
    public var session: Session?
    public var timeout = HTTPRequest.defaultTimeout
    var notes = RequestNotes(base: nil)
    /// The body.
    public var data: Data

    /// A data upload, optionally built on `base` (same rules as `HTTPRequest`).
    public init(
        httpMethod: HTTPRequest.HTTPMethod = .post,
        endpoint: String = "",
        headers: [String: String] = [:],
        parameters: [HTTPRequestParameters] = [],
        data: Data,
        requestInterceptors: [any HTTPRequestInterceptor] = [],
        responseInterceptors: [any HTTPResponseInterceptor] = [],
        session: Session? = nil,
        timeout: TimeInterval? = nil,
        base: HTTPRequest? = nil
    ) {
        self.data = data
        adopt(HTTPRequest(
            httpMethod: httpMethod, endpoint: endpoint, headers: headers, parameters: parameters,
            requestInterceptors: requestInterceptors, responseInterceptors: responseInterceptors,
            session: session, timeout: timeout, base: base))
    }

    public func resolve() throws(HTTPTransportError) -> RawRequest {
        try wireRequest(endpoints: nil)
    }

    var bodyRule: RequestResolver.BodyRule { .data(data) }
}

/// A `multipart/form-data` upload of one file (streamed from disk) or one in-memory part
/// (`POST` by default). `.url` sets go to the query, `.propertyList` and `.form` values become
/// extra form fields after the file, `.json` sets are ignored.
public struct FileUploadHTTPRequest: HTTPRequestEnvelope, UploadRequest {
    public var httpMethod: HTTPRequest.HTTPMethod = .post
    public var endpoint = ""
    public var headers: [String: String] = [:]
    public var parameters: [HTTPRequestParameters] = []
    public var requestInterceptors: [any HTTPRequestInterceptor] = []
    public var responseInterceptors: [any HTTPResponseInterceptor] = []
    public var session: Session?
    public var timeout = HTTPRequest.defaultTimeout
    var notes = RequestNotes(base: nil)
    /// The file part.
    public var fileMultipart: FileMultipart

    /// A file upload, optionally built on `base` (same rules as `HTTPRequest`).
    public init(
        httpMethod: HTTPRequest.HTTPMethod = .post,
        endpoint: String = "",
        headers: [String: String] = [:],
        parameters: [HTTPRequestParameters] = [],
        fileMultipart: FileMultipart,
        requestInterceptors: [any HTTPRequestInterceptor] = [],
        responseInterceptors: [any HTTPResponseInterceptor] = [],
        session: Session? = nil,
        timeout: TimeInterval? = nil,
        base: HTTPRequest? = nil
    ) {
        self.fileMultipart = fileMultipart
        adopt(HTTPRequest(
            httpMethod: httpMethod, endpoint: endpoint, headers: headers, parameters: parameters,
            requestInterceptors: requestInterceptors, responseInterceptors: responseInterceptors,
            session: session, timeout: timeout, base: base))
    }

    public func resolve() throws(HTTPTransportError) -> RawRequest {
        try wireRequest(endpoints: nil)
    }

    var bodyRule: RequestResolver.BodyRule { .multipart(fileMultipart) }
}

/// The file part of a `FileUploadHTTPRequest`: a file on disk (streamed, never read whole) or
/// bytes in memory, with its form field name, file name and MIME type.
public struct FileMultipart: Sendable, Hashable {
    /// The file on disk, when the part comes from a file.
    public let fileURL: URL?
    /// The bytes, when the part comes from memory.
    public let data: Data?
    /// The form field name.
    public let partName: String
    /// The file name announced to the server.
    public let fileName: String
    /// The part's content type.
    public let mimeType: String

    /// A part streamed from a file. A missing file fails the send with `.fileIO`.
    public init(fileURL: URL, partName: String, fileName: String, mimeType: String) {
        self.fileURL = fileURL
        self.data = nil
        self.partName = partName
        self.fileName = fileName
        self.mimeType = mimeType
    }

    /// A part from bytes in memory.
    public init(data: Data, partName: String, fileName: String, mimeType: String) {
        self.fileURL = nil
        self.data = data
        self.partName = partName
        self.fileName = fileName
        self.mimeType = mimeType
    }

    var multipartPart: MultipartPart {
        let content: MultipartPart.Content = fileURL.map(MultipartPart.Content.file) ?? .data(data ?? Data())
        return MultipartPart(name: partName, content: content, fileName: fileName, mimeType: mimeType)
    }
}

/// An upload request type: the fields every request has, taken from an `HTTPRequest` built by
/// its base-request rules, and a body of its own. (The public fields stay declared on each
/// type: moving them into this protocol's extension would remove them from the types' API.)
protocol UploadRequest: NotedRequest {
    /// What the upload's body is.
    var bodyRule: RequestResolver.BodyRule { get }
}

extension UploadRequest {
    func wireRequest(endpoints: ParsedEndpoints?) throws(HTTPTransportError) -> RawRequest {
        try RequestResolver.resolve(self, bodyRule: bodyRule, endpoints: endpoints)
    }

    /// Takes every shared field from `request` (how the upload types apply the base-request rules).
    mutating func adopt(_ request: HTTPRequest) {
        httpMethod = request.httpMethod
        endpoint = request.endpoint
        headers = request.headers
        parameters = request.parameters
        requestInterceptors = request.requestInterceptors
        responseInterceptors = request.responseInterceptors
        session = request.session
        timeout = request.timeout
        notes = request.notes
    }
}
