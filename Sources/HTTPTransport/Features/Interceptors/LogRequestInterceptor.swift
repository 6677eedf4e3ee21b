import Foundation
import Logging

/// Logs every request through swift-log: one record per request (a single multi-line message)
/// carrying a request id that the matching `LogResponseInterceptor` record repeats. The id
/// travels in the request it returns (`RawRequest.requestID`) and is in the record's metadata
/// as `request-id`. A request that already carries an `X-Request-ID` header (or an id set by an
/// earlier interceptor) keeps it as its id. Nothing is added to what is sent unless
/// `addsRequestIDHeader` is `true`, which also sends the id as `X-Request-ID`.
/// Secrets are hidden (see `LogRedaction`) unless the redaction is `.disabled`.
///
/// Put it after interceptors that add headers (authentication, cookies) to log what is sent.
///
/// ```swift
/// let transport = HTTPTransport(
///     requestInterceptors: [LogRequestInterceptor(logLevel: .headers)],
///     responseInterceptors: [LogResponseInterceptor(logLevel: .status)]
/// )
/// // → GET http://127.0.0.1:8080/user?token=<redacted> [req 3f9c0a12b7e4d561]
/// //   Authorization: <redacted>
/// ```
public struct LogRequestInterceptor: HTTPRequestInterceptor {
    /// How much of a request is logged.
    public enum LogLevel: Int, Sendable, CaseIterable, Comparable {
        /// Nothing (and no request id is given).
        case nothing
        /// Method and URL.
        case url
        /// Method, URL and headers.
        case headers
        /// Method, URL, headers and body.
        case everything

        public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// How much is logged.
    public let logLevel: LogLevel
    /// Where records go.
    public let logger: Logger
    /// The swift-log level of the records.
    public let level: Logger.Level
    /// What is hidden.
    public let redaction: LogRedaction
    /// Bodies longer than this many bytes are cut.
    public let maxBodyLength: Int
    /// The header whose value, when a request has it, is its id (and where the id is sent).
    public let requestIDHeader: String
    /// Whether the request id is sent as `requestIDHeader` (default `false`).
    public let addsRequestIDHeader: Bool

    /// A request logger.
    /// - Parameters:
    ///   - logLevel: How much is logged.
    ///   - logger: Where records go.
    ///   - level: The swift-log level of the records.
    ///   - redaction: What is hidden (`.default`; add names with `.default.hiding(headers:…)`,
    ///     or log secrets as they are with `.disabled`).
    ///   - maxBodyLength: Bodies longer than this many bytes are cut.
    ///   - requestIDHeader: The header whose value, when present, is the request's id.
    ///   - addsRequestIDHeader: `true` also sends the id as `requestIDHeader`.
    public init(
        logLevel: LogLevel = .url,
        logger: Logger = Logger(label: "HTTPTransport"),
        level: Logger.Level = .info,
        redaction: LogRedaction = .default,
        maxBodyLength: Int = 4096,
        requestIDHeader: String = "X-Request-ID",
        addsRequestIDHeader: Bool = false
    ) {
        self.logLevel = logLevel
        self.logger = logger
        self.level = level
        self.redaction = redaction
        self.maxBodyLength = maxBodyLength
        self.requestIDHeader = requestIDHeader
        self.addsRequestIDHeader = addsRequestIDHeader
    }

    public func intercept(request: RawRequest) throws -> RawRequest {
        guard logLevel > .nothing else { return request }
        var request = request
        let id = Self.requestID(of: request, header: requestIDHeader)
        request.requestID = id
        if addsRequestIDHeader, !request.headers.contains(requestIDHeader) {
            request.setValue(id, forHTTPHeaderField: requestIDHeader)
        }
        guard logger.logLevel <= level else { return request }
        let message = format(request, id: id)
        logger.log(level: level, "\(message)", metadata: ["request-id": "\(id)"])
        return request
    }

    /// The id of `request`: the value of its id header (what the server sees), else the id an
    /// earlier interceptor gave it, else a fresh one of 16 hex digits.
    static func requestID(of request: RawRequest, header: String) -> String {
        if let sent = request.value(forHTTPHeaderField: header), !sent.isEmpty { return sent }
        if let given = request.requestID, !given.isEmpty { return given }
        let hex = String(UInt64.random(in: .min ... .max), radix: 16, uppercase: false)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The record's text for `request`.
    func format(_ request: RawRequest, id: String) -> String {
        var lines = ["→ \(request.method.rawValue) \(redaction.redactedURL(request.url)) [req \(id)]"]
        if logLevel >= .headers {
            lines += LogFormat.headerLines(request.headers, redaction: redaction)
        }
        if logLevel >= .everything {
            lines += LogFormat.requestBody(request, redaction: redaction, maxLength: maxBodyLength)
        }
        return lines.joined(separator: "\n")
    }
}
