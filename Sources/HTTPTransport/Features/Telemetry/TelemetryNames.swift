import Foundation
import Tracing

/// The attribute and dimension names of OpenTelemetry's HTTP client semantic conventions, and
/// the `error.type` values this library reports.
enum TelemetryNames {
    static let method = "http.request.method"
    static let urlFull = "url.full"
    static let serverAddress = "server.address"
    static let serverPort = "server.port"
    static let protocolVersion = "network.protocol.version"
    static let statusCode = "http.response.status_code"
    static let errorType = "error.type"
    static let resendCount = "http.request.resend_count"
    /// Span events of the per-origin limits (this library's own names, in the conventions' style).
    static let originWaitEvent = "http.client.origin_wait"
    static let waitReason = "http.client.origin_wait.reason"
    static let waitDuration = "http.client.origin_wait.duration"
    static let circuitRefusedEvent = "http.client.circuit_open"

    /// `error.type` for a failure: the status code for an HTTP-status failure (as the
    /// conventions ask), else the error code's name in snake case (`timeout`,
    /// `name_resolution`, `cannot_connect`, …), `_OTHER` for `.other`.
    static func errorType(_ error: HTTPTransportError) -> String {
        error.kindName
    }

    static func errorType(_ code: HTTPTransportError.Code) -> String { code.snakeCaseName }

    /// The port a URL connects to: its own, else the scheme's default.
    static func port(of url: URL) -> Int {
        if let port = url.port { return port }
        return url.scheme?.lowercased() == "https" ? 443 : 80
    }
}

/// What a send's metrics are dimensioned by: where it went, and how it ended.
struct SendOutcome {
    /// The first hop's method, server address and port.
    var target: SendTarget
    var statusCode: Int?
    var errorType: String?

    init(target: SendTarget, result: HTTPTransport.Result) {
        self.target = target
        switch result {
        case .success(let response):
            statusCode = response.httpStatus.rawValue
            // A status of 400 or more is an error for a client even when validation is off.
            if response.httpStatus.rawValue >= 400 { errorType = String(response.httpStatus.rawValue) }
        case .failure(let error):
            statusCode = error.httpStatusCode?.rawValue
            errorType = TelemetryNames.errorType(error)
        }
    }
}

/// The method, server address and port a send first went to.
struct SendTarget {
    var method: String
    var address: String
    var port: Int

    init(_ request: RawRequest) {
        method = request.method.rawValue
        address = request.url.host ?? ""
        port = TelemetryNames.port(of: request.url)
    }

    var dimensions: [(String, String)] {
        [(TelemetryNames.method, method), (TelemetryNames.serverAddress, address), (TelemetryNames.serverPort, String(port))]
    }
}

/// Writes the fields a tracer injects (e.g. W3C `traceparent`) into a list of header fields.
struct PropagationInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [(String, String)]) {
        carrier.append((key, value))
    }
}

/// Finds the trace id in the fields a tracer injected, whatever its propagation format: W3C
/// `traceparent` (`00-<trace id>-<span id>-<flags>`), B3 (`X-B3-TraceId`, or the single `b3`
/// header `<trace id>-<span id>…`), or any field whose name ends in `trace-id` (e.g.
/// `uber-trace-id`, `<trace id>:<span id>:…`, or the in-memory tracer's `in-memory-trace-id`).
enum TraceIDReader {
    static func traceID(in fields: [(String, String)]) -> String? {
        for (name, value) in fields {
            switch name.lowercased() {
            case "traceparent":
                let parts = value.split(separator: "-", omittingEmptySubsequences: false)
                if parts.count >= 4, parts[1].count == 32, parts[1].allSatisfy(\.isHexDigit) { return String(parts[1]) }
            case "x-b3-traceid":
                if !value.isEmpty { return value }
            case "b3":
                if let id = value.split(separator: "-").first, id.count >= 16 { return String(id) }
            case let other where other.hasSuffix("trace-id"):
                if let id = value.split(separator: ":").first, !id.isEmpty { return String(id) }
            default:
                continue
            }
        }
        return nil
    }
}
