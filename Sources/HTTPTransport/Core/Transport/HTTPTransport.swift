import Foundation

/// Sends requests synchronously: a call blocks the calling thread until the exchange is over
/// and returns a `Result`. Holds the session (connection pool and TLS policy), the default
/// request and response interceptors, and whether non-2xx responses are failures.
/// Safe to share across threads.
///
/// ```swift
/// let transport = HTTPTransport()
/// switch transport.send(request: HTTPRequest(endpoint: "http://127.0.0.1:8080/user")) {
/// case .success(let response): print(try response.getJSONDictionary() ?? [:])
/// case .failure(let error): print(error.httpStatusCode?.rawValue ?? 0, error.message)
/// }
/// ```
public final class HTTPTransport: Sendable {
    /// The outcome of a send: a response, or why there is none.
    public enum Result: Sendable {
        case success(response: HTTPResponse)
        case failure(error: HTTPTransportError)

        /// The response, when the send succeeded.
        public var value: HTTPResponse? {
            if case .success(let response) = self { return response }
            return nil
        }

        /// The error, when the send failed.
        public var error: HTTPTransportError? {
            if case .failure(let error) = self { return error }
            return nil
        }

        /// `true` for `.success`.
        public var isSuccess: Bool { value != nil }

        /// The response, or the error thrown.
        public func get() throws(HTTPTransportError) -> HTTPResponse {
            switch self {
            case .success(let response): return response
            case .failure(let error): throw error
            }
        }
    }

    /// The `User-Agent` sent when a request sets none.
    public static let defaultUserAgent = "HTTPTransport/\(version) libcurl/\(CurlEngine.libcurlVersion)"

    /// This library's version.
    public static let version = "1.0.0"

    /// Connection pool and TLS policy (a request's own `session` replaces it).
    public let session: Session
    /// Run on every request after the request's own interceptors.
    public let requestInterceptors: [any HTTPRequestInterceptor]
    /// Run on every response after the request's own interceptors.
    public let responseInterceptors: [any HTTPResponseInterceptor]
    /// When `true`, a response whose status is not 2xx is a `.httpStatus` failure.
    public let useDefaultValidation: Bool
    /// Decides whether failed sends are sent again (`nil`: never).
    public let retrier: (any HTTPRetrier)?
    /// The pipeline of this transport's sends (a request with interceptors or a session of its
    /// own gets its own, `SendPipeline.of(_:on:)`).
    let pipeline: SendPipeline

    /// A transport.
    public init(
        session: Session = Session(),
        requestInterceptors: [any HTTPRequestInterceptor] = [],
        responseInterceptors: [any HTTPResponseInterceptor] = [ClarifyErrorInterceptor()],
        useDefaultValidation: Bool = true,
        retrier: (any HTTPRetrier)? = nil
    ) {
        self.session = session
        self.requestInterceptors = requestInterceptors
        self.responseInterceptors = responseInterceptors
        self.useDefaultValidation = useDefaultValidation
        self.retrier = retrier
        pipeline = SendPipeline(session: session, requestInterceptors: requestInterceptors,
                                responseInterceptors: responseInterceptors, validatesStatus: useDefaultValidation,
                                steps: SendPipeline.steps(of: session, retrier: retrier))
    }

    /// A transport with a new session using `security`.
    public convenience init(
        security: Security,
        requestInterceptors: [any HTTPRequestInterceptor] = [],
        responseInterceptors: [any HTTPResponseInterceptor] = [ClarifyErrorInterceptor()],
        useDefaultValidation: Bool = true,
        retrier: (any HTTPRetrier)? = nil
    ) {
        self.init(session: Session(security: security), requestInterceptors: requestInterceptors,
                  responseInterceptors: responseInterceptors, useDefaultValidation: useDefaultValidation,
                  retrier: retrier)
    }

    /// Sends a request and waits for the result.
    public func send(request: HTTPRequest) -> Result {
        SendPipeline.of(request, on: self).run(request, control: TransferControl())
    }

    /// Sends a data upload and waits for the result.
    public func send(request: DataUploadHTTPRequest) -> Result {
        SendPipeline.of(request, on: self).run(request, control: TransferControl())
    }

    /// Sends a file upload and waits for the result.
    public func send(request: FileUploadHTTPRequest) -> Result {
        SendPipeline.of(request, on: self).run(request, control: TransferControl())
    }

    /// Sends any request type with progress reports and/or a cancellation handle.
    public func send(request: some HTTPRequestEnvelope, control: TransferControl) -> Result {
        SendPipeline.of(request, on: self).run(request, control: control)
    }
}
