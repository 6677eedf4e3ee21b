/// An HTTP status code: every IANA-registered code is a static member named after its reason
/// phrase (`.ok`, `.notFound`, `.serviceUnavailable`), and any other code in 100...999 is still
/// representable (`HTTPStatusCode(rawValue: 599)`). Usable in `switch`:
///
/// ```swift
/// switch response.httpStatus {
/// case .ok, .created: break
/// case .notFound: print("missing")
/// default: print(response.httpStatus.rawValue)
/// }
/// ```
public struct HTTPStatusCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The numeric code, e.g. `404`.
    public let rawValue: Int

    /// Wraps any numeric status code.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Wraps any numeric status code.
    public init(_ code: Int) { self.rawValue = code }

    /// The registered reason phrase (`"Not Found"`), or `"Unknown"` for an unregistered code.
    public var reasonPhrase: String { Self.reasonPhrases[rawValue] ?? "Unknown" }

    /// `true` for 1xx.
    public var isInformational: Bool { (100...199).contains(rawValue) }
    /// `true` for 2xx.
    public var isSuccess: Bool { (200...299).contains(rawValue) }
    /// `true` for 3xx.
    public var isRedirection: Bool { (300...399).contains(rawValue) }
    /// `true` for 4xx.
    public var isClientError: Bool { (400...499).contains(rawValue) }
    /// `true` for 5xx.
    public var isServerError: Bool { (500...599).contains(rawValue) }

    /// `"404 Not Found"`.
    public var description: String { "\(rawValue) \(reasonPhrase)" }

    public static func < (lhs: HTTPStatusCode, rhs: HTTPStatusCode) -> Bool { lhs.rawValue < rhs.rawValue }

    /// 100 Continue.
    public static let `continue` = HTTPStatusCode(rawValue: 100)
    /// 101 Switching Protocols.
    public static let switchingProtocols = HTTPStatusCode(rawValue: 101)
    /// 102 Processing.
    public static let processing = HTTPStatusCode(rawValue: 102)
    /// 103 Early Hints.
    public static let earlyHints = HTTPStatusCode(rawValue: 103)
    /// 200 OK.
    public static let ok = HTTPStatusCode(rawValue: 200)
    /// 201 Created.
    public static let created = HTTPStatusCode(rawValue: 201)
    /// 202 Accepted.
    public static let accepted = HTTPStatusCode(rawValue: 202)
    /// 203 Non-Authoritative Information.
    public static let nonAuthoritativeInformation = HTTPStatusCode(rawValue: 203)
    /// 204 No Content.
    public static let noContent = HTTPStatusCode(rawValue: 204)
    /// 205 Reset Content.
    public static let resetContent = HTTPStatusCode(rawValue: 205)
    /// 206 Partial Content.
    public static let partialContent = HTTPStatusCode(rawValue: 206)
    /// 207 Multi-Status.
    public static let multiStatus = HTTPStatusCode(rawValue: 207)
    /// 208 Already Reported.
    public static let alreadyReported = HTTPStatusCode(rawValue: 208)
    /// 226 IM Used.
    public static let imUsed = HTTPStatusCode(rawValue: 226)
    /// 300 Multiple Choices.
    public static let multipleChoices = HTTPStatusCode(rawValue: 300)
    /// 301 Moved Permanently.
    public static let movedPermanently = HTTPStatusCode(rawValue: 301)
    /// 302 Found.
    public static let found = HTTPStatusCode(rawValue: 302)
    /// 303 See Other.
    public static let seeOther = HTTPStatusCode(rawValue: 303)
    /// 304 Not Modified.
    public static let notModified = HTTPStatusCode(rawValue: 304)
    /// 305 Use Proxy.
    public static let useProxy = HTTPStatusCode(rawValue: 305)
    /// 307 Temporary Redirect.
    public static let temporaryRedirect = HTTPStatusCode(rawValue: 307)
    /// 308 Permanent Redirect.
    public static let permanentRedirect = HTTPStatusCode(rawValue: 308)
    /// 400 Bad Request.
    public static let badRequest = HTTPStatusCode(rawValue: 400)
    /// 401 Unauthorized.
    public static let unauthorized = HTTPStatusCode(rawValue: 401)
    /// 402 Payment Required.
    public static let paymentRequired = HTTPStatusCode(rawValue: 402)
    /// 403 Forbidden.
    public static let forbidden = HTTPStatusCode(rawValue: 403)
    /// 404 Not Found.
    public static let notFound = HTTPStatusCode(rawValue: 404)
    /// 405 Method Not Allowed.
    public static let methodNotAllowed = HTTPStatusCode(rawValue: 405)
    /// 406 Not Acceptable.
    public static let notAcceptable = HTTPStatusCode(rawValue: 406)
    /// 407 Proxy Authentication Required.
    public static let proxyAuthenticationRequired = HTTPStatusCode(rawValue: 407)
    /// 408 Request Timeout.
    public static let requestTimeout = HTTPStatusCode(rawValue: 408)
    /// 409 Conflict.
    public static let conflict = HTTPStatusCode(rawValue: 409)
    /// 410 Gone.
    public static let gone = HTTPStatusCode(rawValue: 410)
    /// 411 Length Required.
    public static let lengthRequired = HTTPStatusCode(rawValue: 411)
    /// 412 Precondition Failed.
    public static let preconditionFailed = HTTPStatusCode(rawValue: 412)
    /// 413 Content Too Large.
    public static let contentTooLarge = HTTPStatusCode(rawValue: 413)
    /// 414 URI Too Long.
    public static let uriTooLong = HTTPStatusCode(rawValue: 414)
    /// 415 Unsupported Media Type.
    public static let unsupportedMediaType = HTTPStatusCode(rawValue: 415)
    /// 416 Range Not Satisfiable.
    public static let rangeNotSatisfiable = HTTPStatusCode(rawValue: 416)
    /// 417 Expectation Failed.
    public static let expectationFailed = HTTPStatusCode(rawValue: 417)
    /// 421 Misdirected Request.
    public static let misdirectedRequest = HTTPStatusCode(rawValue: 421)
    /// 422 Unprocessable Content.
    public static let unprocessableContent = HTTPStatusCode(rawValue: 422)
    /// 423 Locked.
    public static let locked = HTTPStatusCode(rawValue: 423)
    /// 424 Failed Dependency.
    public static let failedDependency = HTTPStatusCode(rawValue: 424)
    /// 425 Too Early.
    public static let tooEarly = HTTPStatusCode(rawValue: 425)
    /// 426 Upgrade Required.
    public static let upgradeRequired = HTTPStatusCode(rawValue: 426)
    /// 428 Precondition Required.
    public static let preconditionRequired = HTTPStatusCode(rawValue: 428)
    /// 429 Too Many Requests.
    public static let tooManyRequests = HTTPStatusCode(rawValue: 429)
    /// 431 Request Header Fields Too Large.
    public static let requestHeaderFieldsTooLarge = HTTPStatusCode(rawValue: 431)
    /// 451 Unavailable For Legal Reasons.
    public static let unavailableForLegalReasons = HTTPStatusCode(rawValue: 451)
    /// 500 Internal Server Error.
    public static let internalServerError = HTTPStatusCode(rawValue: 500)
    /// 501 Not Implemented.
    public static let notImplemented = HTTPStatusCode(rawValue: 501)
    /// 502 Bad Gateway.
    public static let badGateway = HTTPStatusCode(rawValue: 502)
    /// 503 Service Unavailable.
    public static let serviceUnavailable = HTTPStatusCode(rawValue: 503)
    /// 504 Gateway Timeout.
    public static let gatewayTimeout = HTTPStatusCode(rawValue: 504)
    /// 505 HTTP Version Not Supported.
    public static let httpVersionNotSupported = HTTPStatusCode(rawValue: 505)
    /// 506 Variant Also Negotiates.
    public static let variantAlsoNegotiates = HTTPStatusCode(rawValue: 506)
    /// 507 Insufficient Storage.
    public static let insufficientStorage = HTTPStatusCode(rawValue: 507)
    /// 508 Loop Detected.
    public static let loopDetected = HTTPStatusCode(rawValue: 508)
    /// 510 Not Extended.
    public static let notExtended = HTTPStatusCode(rawValue: 510)
    /// 511 Network Authentication Required.
    public static let networkAuthenticationRequired = HTTPStatusCode(rawValue: 511)
    /// 413, under its former name.
    public static let payloadTooLarge = HTTPStatusCode(rawValue: 413)
    /// 422, under its former name.
    public static let unprocessableEntity = HTTPStatusCode(rawValue: 422)
    /// 416, under its former name.
    public static let requestedRangeNotSatisfiable = HTTPStatusCode(rawValue: 416)
    /// 414, under its former name.
    public static let requestURITooLong = HTTPStatusCode(rawValue: 414)

    private static let reasonPhrases: [Int: String] = [
        100: "Continue",
        101: "Switching Protocols",
        102: "Processing",
        103: "Early Hints",
        200: "OK",
        201: "Created",
        202: "Accepted",
        203: "Non-Authoritative Information",
        204: "No Content",
        205: "Reset Content",
        206: "Partial Content",
        207: "Multi-Status",
        208: "Already Reported",
        226: "IM Used",
        300: "Multiple Choices",
        301: "Moved Permanently",
        302: "Found",
        303: "See Other",
        304: "Not Modified",
        305: "Use Proxy",
        307: "Temporary Redirect",
        308: "Permanent Redirect",
        400: "Bad Request",
        401: "Unauthorized",
        402: "Payment Required",
        403: "Forbidden",
        404: "Not Found",
        405: "Method Not Allowed",
        406: "Not Acceptable",
        407: "Proxy Authentication Required",
        408: "Request Timeout",
        409: "Conflict",
        410: "Gone",
        411: "Length Required",
        412: "Precondition Failed",
        413: "Content Too Large",
        414: "URI Too Long",
        415: "Unsupported Media Type",
        416: "Range Not Satisfiable",
        417: "Expectation Failed",
        421: "Misdirected Request",
        422: "Unprocessable Content",
        423: "Locked",
        424: "Failed Dependency",
        425: "Too Early",
        426: "Upgrade Required",
        428: "Precondition Required",
        429: "Too Many Requests",
        431: "Request Header Fields Too Large",
        451: "Unavailable For Legal Reasons",
        500: "Internal Server Error",
        501: "Not Implemented",
        502: "Bad Gateway",
        503: "Service Unavailable",
        504: "Gateway Timeout",
        505: "HTTP Version Not Supported",
        506: "Variant Also Negotiates",
        507: "Insufficient Storage",
        508: "Loop Detected",
        510: "Not Extended",
        511: "Network Authentication Required",
    ]
}
