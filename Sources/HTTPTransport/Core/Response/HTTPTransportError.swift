import Foundation

/// Why a send failed: a bad request, a network or TLS fault, an HTTP status that failed
/// validation, or an interceptor's verdict. Carries what is known of the exchange (URL, status,
/// headers, body) and libcurl's own code and message where there was one.
///
/// Its texts never show a URL's secrets (user info, secret query values; see `LogRedaction`),
/// however the message was built: `message`, `curlMessage`, `description` and the `NSError`
/// form are redacted, and only `url` keeps the raw URL.
///
/// ```swift
/// if case .failure(let error) = transport.send(request: request) {
///     print(error.code, error.httpStatusCode?.rawValue ?? 0, error.responseBodyErrorMessage ?? "")
/// }
/// ```
public struct HTTPTransportError: Error, CustomNSError, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The kind of failure.
    public enum Code: Int, Sendable, CaseIterable {
        /// The endpoint is not a valid http(s) URL.
        case invalidURL = 1
        /// A parameter could not be encoded (an unsupported value, a non-finite number, …).
        case encodingFailed = 2
        /// The host name could not be resolved.
        case nameResolution = 3
        /// No connection could be made (refused, unreachable).
        case cannotConnect = 4
        /// The request's time-out (or the connect time-out) ran out.
        case timeout = 5
        /// The TLS handshake or certificate verification failed.
        case tlsFailure = 6
        /// The server's certificate did not match the configured pins.
        case pinningFailed = 7
        /// The response status failed validation (not 2xx by default).
        case httpStatus = 8
        /// The response body passed the session's size cap.
        case responseTooLarge = 9
        /// The redirect limit was reached.
        case tooManyRedirects = 10
        /// The server's response was malformed, truncated or cut off.
        case badResponse = 11
        /// A file could not be read or written.
        case fileIO = 12
        /// The transfer was cancelled.
        case cancelled = 13
        /// A request interceptor threw.
        case interceptorFailed = 14
        /// Anything else (see `curlCode` and `message`).
        case other = 15
        /// The session's `addressPolicy` refused the address a connection would go to (or a
        /// proxy it cannot see through); nothing was sent.
        case addressNotAllowed = 16
        /// A redirect from https to plain http, which the session does not follow.
        case insecureRedirect = 17
        /// The session's `circuitBreaker` holds the origin's circuit open after its failures;
        /// nothing was sent (the message says since when and until when).
        case circuitOpen = 18
        /// This process's libcurl cannot do what was asked (WebSockets need libcurl 8.11 or
        /// newer built with `ws`/`wss`); the message says how to get one. Nothing was sent.
        case unsupported = 19
    }

    /// The kind of failure.
    public var code: Code {
        get { box.fields.code }
        set { box.fields.code = newValue }
    }
    /// A human-readable explanation, naming what went wrong and where (URLs in it redacted).
    public var message: String {
        get { box.fields.message }
        set { box.fields.message = Self.redacted(newValue) }
    }
    /// The request URL when one is known; the raw endpoint string for an invalid URL.
    public var url: String? {
        get { box.fields.url }
        set { box.fields.url = newValue }
    }
    /// The response status, when a response arrived.
    public var httpStatusCode: HTTPStatusCode? {
        get { box.fields.httpStatusCode }
        set { box.fields.httpStatusCode = newValue }
    }
    /// The response headers, when a response arrived.
    public var responseHeaders: HTTPHeaders {
        get { box.fields.responseHeaders }
        set { box.fields.responseHeaders = newValue }
    }
    /// The response body, when a response arrived.
    public var responseBodyData: Data? {
        get { box.fields.responseBodyData }
        set { box.fields.responseBodyData = newValue }
    }
    /// The error code found in the response body (set by `ClarifyErrorInterceptor`).
    public var responseBodyErrorCode: String? {
        get { box.fields.responseBodyErrorCode }
        set { box.fields.responseBodyErrorCode = newValue }
    }
    /// The error message found in the response body (set by `ClarifyErrorInterceptor`).
    public var responseBodyErrorMessage: String? {
        get { box.fields.responseBodyErrorMessage }
        set { box.fields.responseBodyErrorMessage = newValue }
    }
    /// libcurl's `CURLcode`, when libcurl reported the failure.
    public var curlCode: Int? {
        get { box.fields.curlCode }
        set { box.fields.curlCode = newValue }
    }
    /// libcurl's error-buffer text, when there was one (URLs in it redacted).
    public var curlMessage: String? {
        get { box.fields.curlMessage }
        set { box.fields.curlMessage = newValue.map(Self.redacted) }
    }
    /// The error that caused this one (e.g. what an interceptor threw), if any.
    public var underlyingError: (any Error & Sendable)? {
        get { box.fields.underlyingError }
        set { box.fields.underlyingError = newValue }
    }

    /// The fields, kept behind one reference (copy-on-write): an error rides along in every
    /// response value the pipeline passes on, usually as nil, and a one-word optional copies for
    /// the price of a pointer.
    private struct Fields: Sendable {
        var code: Code
        var message: String
        var url: String?
        var httpStatusCode: HTTPStatusCode?
        var responseHeaders: HTTPHeaders
        var responseBodyData: Data?
        var responseBodyErrorCode: String?
        var responseBodyErrorMessage: String?
        var curlCode: Int?
        var curlMessage: String?
        var underlyingError: (any Error & Sendable)?
    }

    private var box: CopyOnWrite<Fields>

    /// A failure of the given kind.
    public init(
        code: Code,
        message: String,
        url: String? = nil,
        httpStatusCode: HTTPStatusCode? = nil,
        responseHeaders: HTTPHeaders = HTTPHeaders(),
        responseBodyData: Data? = nil,
        curlCode: Int? = nil,
        curlMessage: String? = nil,
        underlyingError: (any Error & Sendable)? = nil
    ) {
        box = CopyOnWrite(Fields(
            code: code, message: Self.redacted(message), url: url, httpStatusCode: httpStatusCode,
            responseHeaders: responseHeaders, responseBodyData: responseBodyData, curlCode: curlCode,
            curlMessage: curlMessage.map(Self.redacted), underlyingError: underlyingError))
    }

    /// The response body as UTF-8 text.
    public var responseBodyString: String? {
        responseBodyData.flatMap { String(data: $0, encoding: .utf8) }
    }

    /// The response body parsed as JSON, or `nil` when it is absent or not JSON.
    public var responseBodyJSON: Any? {
        guard let data = responseBodyData, !data.isEmpty else { return nil }
        return try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }

    /// The response body parsed as a JSON object, or `nil`.
    public var responseBodyJSONDictionary: [String: Any]? {
        responseBodyJSON as? [String: Any]
    }

    public var description: String {
        var text = "HTTPTransportError.\(code): \(message)"
        if let url { text += " [\(Self.redacted(url))]" }
        return text
    }

    public var debugDescription: String { description }

    /// Text with the secrets of every URL in it hidden (messages are built in many places,
    /// from raw URLs and raw `Location` values: they are redacted here, once for all).
    private static func redacted(_ text: String) -> String {
        LogRedaction.default.redactedText(text)
    }

    // MARK: CustomNSError

    /// The `NSError` domain of every HTTPTransport error.
    public static let errorDomain = "HTTPTransport"

    /// `userInfo` keys under which `error as NSError` carries this error's fields (the URL and
    /// the response headers with their secrets hidden, since an `NSError` prints its `userInfo`).
    public enum UserInfoKey {
        public static let url = "HTTPTransport.url"
        public static let httpStatusCode = "HTTPTransport.httpStatusCode"
        public static let responseHeaders = "HTTPTransport.responseHeaders"
        public static let responseBodyData = "HTTPTransport.responseBodyData"
        public static let responseBodyErrorCode = "HTTPTransport.responseBodyErrorCode"
        public static let responseBodyErrorMessage = "HTTPTransport.responseBodyErrorMessage"
        public static let curlCode = "HTTPTransport.curlCode"
        public static let curlMessage = "HTTPTransport.curlMessage"
    }

    public var errorCode: Int { code.rawValue }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let url { info[UserInfoKey.url] = Self.redacted(url) }
        if let httpStatusCode { info[UserInfoKey.httpStatusCode] = httpStatusCode.rawValue }
        if !responseHeaders.isEmpty {
            info[UserInfoKey.responseHeaders] = responseHeaders.dictionary
                .reduce(into: [String: String]()) { $0[$1.key] = LogRedaction.default.headerValue($1.value, name: $1.key) }
        }
        if let responseBodyData { info[UserInfoKey.responseBodyData] = responseBodyData }
        if let responseBodyErrorCode { info[UserInfoKey.responseBodyErrorCode] = responseBodyErrorCode }
        if let responseBodyErrorMessage { info[UserInfoKey.responseBodyErrorMessage] = responseBodyErrorMessage }
        if let curlCode { info[UserInfoKey.curlCode] = curlCode }
        if let curlMessage { info[UserInfoKey.curlMessage] = curlMessage }
        if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError as NSError }
        return info
    }
}

extension NSError {
    /// The request URL (the endpoint string when it could not be parsed), its secrets hidden.
    public var url: String? { userInfo[HTTPTransportError.UserInfoKey.url] as? String }

    /// The HTTP status of the response, if one arrived.
    public var httpStatusCode: HTTPStatusCode? {
        (userInfo[HTTPTransportError.UserInfoKey.httpStatusCode] as? Int).map(HTTPStatusCode.init(rawValue:))
    }

    /// The received body bytes.
    public var responseBodyData: Data? { userInfo[HTTPTransportError.UserInfoKey.responseBodyData] as? Data }

    /// The received body as UTF-8 text.
    public var responseBodyString: String? { responseBodyData.flatMap { String(data: $0, encoding: .utf8) } }

    /// The received body as a JSON object.
    public var responseBodyJSON: Any? {
        guard let data = responseBodyData, !data.isEmpty else { return nil }
        return try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }

    /// The received body as a JSON dictionary.
    public var responseBodyJSONDictionary: [String: Any]? { responseBodyJSON as? [String: Any] }

    /// The error code parsed from the body by `ClarifyErrorInterceptor`.
    public var responseBodyErrorCode: String? {
        userInfo[HTTPTransportError.UserInfoKey.responseBodyErrorCode] as? String
    }

    /// The error message parsed from the body by `ClarifyErrorInterceptor`.
    public var responseBodyErrorMessage: String? {
        userInfo[HTTPTransportError.UserInfoKey.responseBodyErrorMessage] as? String
    }
}
