import Foundation
import Logging

/// Logs every response through swift-log: one record per response (a single multi-line
/// message) with the status or the error, the request's method and URL, the total time, and
/// the request id that `LogRequestInterceptor` logged (also in metadata as `request-id`).
/// Secrets are hidden (see `LogRedaction`) unless the redaction is `.disabled`.
///
/// ```swift
/// LogResponseInterceptor(logLevel: .everything, isFilteringHeaders: true, headerFilter: ["Content-Type"])
/// // ← 200 OK GET http://127.0.0.1:8080/user in 3.2 ms [req 3f9c0a12b7e4d561]
/// //   Content-Type: application/json
/// //   {"users":[]}
/// ```
public struct LogResponseInterceptor: HTTPResponseInterceptor {
    /// How much of a response is logged.
    public enum LogLevel: Int, Sendable, CaseIterable, Comparable {
        /// Nothing.
        case nothing
        /// Status (or error), method, URL and time.
        case status
        /// Status line and headers.
        case headers
        /// Status line, headers and body.
        case everything

        public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// How much is logged.
    public let logLevel: LogLevel
    /// When `true`, only the headers named in `headerFilter` are logged.
    public let isFilteringHeaders: Bool
    /// The headers logged when `isFilteringHeaders` is `true` (case-insensitive).
    public let headerFilter: [String]
    /// Where records go.
    public let logger: Logger
    /// The swift-log level of the records.
    public let level: Logger.Level
    /// What is hidden.
    public let redaction: LogRedaction
    /// Bodies longer than this many bytes are cut.
    public let maxBodyLength: Int
    /// The request header read for the id of a request that `LogRequestInterceptor` did not see.
    public let requestIDHeader: String

    /// A response logger.
    /// - Parameters:
    ///   - logLevel: How much is logged.
    ///   - isFilteringHeaders: `true` logs only the headers named in `headerFilter`.
    ///   - headerFilter: The headers logged when filtering.
    ///   - logger: Where records go.
    ///   - level: The swift-log level of the records.
    ///   - redaction: What is hidden (`.default`; add names with `.default.hiding(headers:…)`,
    ///     or log secrets as they are with `.disabled`).
    ///   - maxBodyLength: Bodies longer than this many bytes are cut.
    ///   - requestIDHeader: The request header read for the id when the request has no `requestID`.
    public init(
        logLevel: LogLevel = .status,
        isFilteringHeaders: Bool = false,
        headerFilter: [String] = [],
        logger: Logger = Logger(label: "HTTPTransport"),
        level: Logger.Level = .info,
        redaction: LogRedaction = .default,
        maxBodyLength: Int = 4096,
        requestIDHeader: String = "X-Request-ID"
    ) {
        self.logLevel = logLevel
        self.isFilteringHeaders = isFilteringHeaders
        self.headerFilter = headerFilter
        self.logger = logger
        self.level = level
        self.redaction = redaction
        self.maxBodyLength = maxBodyLength
        self.requestIDHeader = requestIDHeader
    }

    public func intercept(response: RawResponse) -> RawResponse {
        guard logLevel > .nothing, logger.logLevel <= level else { return response }
        let id = response.request.requestID
            ?? response.request.value(forHTTPHeaderField: requestIDHeader).flatMap { $0.isEmpty ? nil : $0 }
        var metadata: Logger.Metadata = [:]
        if let id { metadata["request-id"] = "\(id)" }
        if let status = response.statusCode { metadata["status"] = "\(status.rawValue)" }
        logger.log(level: level, "\(format(response, id: id))", metadata: metadata)
        return response
    }

    /// The record's text for `response`.
    func format(_ response: RawResponse, id: String?) -> String {
        let request = response.request
        let url = redaction.redactedURL(request.url)
        var first = "← "
        if let status = response.statusCode {
            first += "\(status.rawValue) \(status.reasonPhrase) "
        } else {
            first += "no response "
        }
        first += "\(request.method.rawValue) \(url) in \(LogFormat.milliseconds(response.metrics.total))"
        if let id { first += " [req \(id)]" }
        if let error = response.error {
            first += " failed: \(error.code)"
            // A status error's message only repeats the first line.
            if error.code != .httpStatus || response.statusCode == nil {
                first += ": \(redaction.redactedText(error.message))"
            }
        }
        var lines = [first]
        if logLevel >= .headers {
            let filter = isFilteringHeaders ? Set(headerFilter.map { $0.lowercased() }) : nil
            lines += LogFormat.headerLines(response.headers, redaction: redaction, filter: filter)
        }
        if logLevel >= .everything {
            if let fileURL = response.fileURL {
                lines.append("  <body written to \(fileURL.path)>")
            } else if let data = response.data {
                lines += LogFormat.indent(LogFormat.body(data, contentType: response.headers["Content-Type"],
                                                         redaction: redaction, maxLength: maxBodyLength))
            } else if response.statusCode != nil {
                lines.append("  (no body)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
