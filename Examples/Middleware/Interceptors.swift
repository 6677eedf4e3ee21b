import Foundation
import HTTPTransport
import Synchronization

// Custom interceptors. Each is a small `Sendable` value: request interceptors take a
// `RawRequest` and return a (modified) copy, response interceptors do the same with a
// `RawResponse`. They run on the sending thread, so anything they share must be thread-safe.

// MARK: - Authentication

/// The current access token, shared by every thread (and replaced by a refresh).
final class TokenStore: Sendable {
    private let token: Mutex<String>

    init(token: String) { self.token = Mutex(token) }

    var current: String { token.withLock { $0 } }
    func replace(with value: String) { token.withLock { $0 = value } }
}

/// Adds `Authorization: Bearer <token>` to every request, reading the token at send time (so a
/// refreshed token is used by the next send, and by a retry).
struct BearerTokenInterceptor: HTTPRequestInterceptor {
    let tokens: TokenStore

    func intercept(request: RawRequest) throws -> RawRequest {
        var request = request
        request.setValue("Bearer \(tokens.current)", forHTTPHeaderField: "Authorization")
        return request
    }
}

// MARK: - Request ids

/// Gives every request an `X-Request-ID` (unless it already has one), so client and server
/// logs can be matched. Put it before `LogRequestInterceptor`, which then logs this id
/// instead of making its own.
struct RequestIDInterceptor: HTTPRequestInterceptor {
    let prefix: String
    private let counter = Counter()

    init(prefix: String) { self.prefix = prefix }

    func intercept(request: RawRequest) throws -> RawRequest {
        guard request.value(forHTTPHeaderField: "X-Request-ID") == nil else { return request }
        var request = request
        request.setValue("\(prefix)-\(counter.next())", forHTTPHeaderField: "X-Request-ID")
        return request
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    /// Adds one and returns the new count.
    @discardableResult
    func next() -> Int { count.add(1, ordering: .relaxed).newValue }
    var value: Int { count.load(ordering: .relaxed) }
}

// MARK: - Timing

/// Collects the timing of every exchange from `RawResponse.metrics` (libcurl's own figures).
final class TimingRecorder: HTTPResponseInterceptor {
    struct Entry: Sendable {
        let method: String
        let path: String
        let status: Int?
        let connect: TimeInterval
        let firstByte: TimeInterval
        let total: TimeInterval
        let reused: Bool
    }

    private let entries = Mutex<[Entry]>([])

    func intercept(response: RawResponse) -> RawResponse {
        let metrics = response.metrics
        let entry = Entry(method: response.request.method.rawValue, path: response.request.url.path,
                          status: response.statusCode?.rawValue, connect: metrics.connect,
                          firstByte: metrics.firstByte, total: metrics.total, reused: metrics.connectionReused)
        entries.withLock { $0.append(entry) }
        return response
    }

    var all: [Entry] { entries.withLock { $0 } }

    /// A small table of what was recorded.
    func report() -> String {
        func ms(_ seconds: TimeInterval) -> String { String(format: "%6.2f", seconds * 1000) }
        var lines = ["   method path                         status connect  first  total (ms) reused"]
        for entry in all {
            let path = entry.path.padding(toLength: 28, withPad: " ", startingAt: 0)
            let status = entry.status.map(String.init) ?? "-"
            lines.append("   \(entry.method.padding(toLength: 6, withPad: " ", startingAt: 0)) \(path) \(status.padding(toLength: 6, withPad: " ", startingAt: 0)) \(ms(entry.connect)) \(ms(entry.firstByte)) \(ms(entry.total))      \(entry.reused ? "yes" : "no")")
        }
        return lines.joined(separator: "\n")
    }
}

// MARK: - Guard rails

/// Refuses requests to hosts outside an allow-list. Throwing ends the send before anything
/// leaves the machine. Any error ends it with `.interceptorFailed` and the error's description
/// in the message; throwing an `HTTPTransportError` instead keeps its code and
/// `underlyingError`, so callers can still tell why.
struct HostAllowListInterceptor: HTTPRequestInterceptor {
    struct NotAllowed: Error, Sendable, CustomStringConvertible {
        let host: String
        var description: String { "host \(host) is not on the allow-list" }
    }

    let allowedHosts: Set<String>

    func intercept(request: RawRequest) throws -> RawRequest {
        let host = request.url.host ?? ""
        guard allowedHosts.contains(host) else {
            let reason = NotAllowed(host: host)
            throw HTTPTransportError(code: .interceptorFailed, message: "Refused: \(reason)",
                                     url: request.url.absoluteString, underlyingError: reason)
        }
        return request
    }
}

// MARK: - Ordering

/// Appends "<phase> <label>" to a shared trace: used to show in which order interceptors run.
struct TraceInterceptor: HTTPRequestInterceptor, HTTPResponseInterceptor {
    let label: String
    let trace: Trace

    func intercept(request: RawRequest) throws -> RawRequest {
        trace.append("request:\(label)")
        return request
    }

    func intercept(response: RawResponse) -> RawResponse {
        trace.append("response:\(label)")
        return response
    }
}

final class Trace: Sendable {
    private let steps = Mutex<[String]>([])
    func append(_ step: String) { steps.withLock { $0.append(step) } }
    var all: [String] { steps.withLock { $0 } }
}

// MARK: - Fault injection

/// Turns responses for the given paths into a `503 Service Unavailable` failure, as if the
/// server were in maintenance: a way to exercise error handling against a real server. (To
/// answer without any server, give the session a `StubEngine` instead; an interceptor cannot
/// skip the exchange.)
struct FaultInjectionInterceptor: HTTPResponseInterceptor {
    let paths: Set<String>

    func intercept(response: RawResponse) -> RawResponse {
        guard paths.contains(response.request.url.path) else { return response }
        var response = response
        let body = Data(#"{"error":{"code":"maintenance","message":"Injected fault: down for maintenance"}}"#.utf8)
        response.statusCode = .serviceUnavailable
        response.data = body
        response.error = HTTPTransportError(
            code: .httpStatus, message: "Injected 503 for \(response.request.url.path)",
            url: response.request.url.absoluteString, httpStatusCode: .serviceUnavailable,
            responseHeaders: response.headers, responseBodyData: body)
        return response
    }
}
