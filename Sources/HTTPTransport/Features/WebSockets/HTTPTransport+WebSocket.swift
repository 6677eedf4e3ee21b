import Foundation

extension HTTPTransport {
    /// Whether this process's libcurl has WebSockets (libcurl 8.11 or newer built with
    /// `ws`/`wss`: Debian 13's, or bookworm-backports' on Debian 12). Without them
    /// `webSocket(_:configuration:)` fails with `.unsupported`.
    public static var supportsWebSockets: Bool { CurlEngine.supportsWebSockets }

    /// Opens a WebSocket to a `ws://`, `wss://` (or `http(s)://`) endpoint.
    ///
    /// The handshake is a send like any other: request interceptors, cookies, the address policy,
    /// proxies, pins, host limits and the circuit breaker apply, and response interceptors see
    /// its head. An answer other than 101 fails with `.httpStatus` (its body attached);
    /// redirects are not followed; the handshake is never cached, nor retried once answered.
    /// The request's `timeout` bounds the handshake only.
    public func webSocket(_ request: HTTPRequest, configuration: WebSocket.Configuration = .init())
        async throws(HTTPTransportError) -> WebSocket {
        let (upgrade, link) = try webSocketHandshake(request, configuration: configuration)
        return try opened(await result(for: upgrade, progress: nil), link: link, configuration: configuration,
                          session: request.session ?? session)
    }

    /// The blocking form of `webSocket(_:configuration:)`, for worker threads: the handshake runs
    /// on the session's transfer loop while the calling thread waits.
    public func webSocket(request: HTTPRequest, configuration: WebSocket.Configuration = .init())
        throws(HTTPTransportError) -> WebSocket {
        let (upgrade, link) = try webSocketHandshake(request, configuration: configuration)
        let done = WebSocketHandoff<HTTPTransport.Result>()
        let session = request.session ?? session
        Task(executorPreference: session.executor) { [self] in done.deliver(await result(for: upgrade, progress: nil)) }
        return try opened(done.wait(), link: link, configuration: configuration, session: session)
    }

    /// The handshake's request (its endpoint in `http(s)` form, the subprotocols offered) and
    /// the socket it opens.
    private func webSocketHandshake(_ request: HTTPRequest, configuration: WebSocket.Configuration)
        throws(HTTPTransportError) -> (HTTPRequest, WebSocketLink) {
        guard Self.supportsWebSockets else { throw CurlEngine.webSocketsUnsupported(url: request.endpoint) }
        let settings = try configuration.settings(pongTimeout: request.timeout, url: request.endpoint)
        var upgrade = request
        upgrade.endpoint = Self.httpEndpoint(request.endpoint)
        if !configuration.protocols.isEmpty {
            upgrade = upgrade.adding(header: "Sec-WebSocket-Protocol", value: configuration.protocols.joined(separator: ", "))
        }
        let link = WebSocketLink(settings: settings, url: request.endpoint)
        upgrade.notes.webSocket = link
        return (upgrade, link)
    }

    /// The socket, once the handshake's result says it opened.
    private func opened(_ result: HTTPTransport.Result, link: WebSocketLink, configuration: WebSocket.Configuration,
                        session: Session) throws(HTTPTransportError) -> WebSocket {
        let response: HTTPResponse
        switch result {
        case .failure(let error):
            link.abandon()
            throw error
        case .success(let answer):
            response = answer
        }
        guard link.isOpen else {
            throw HTTPTransportError(code: .unsupported, message: "The session's engine cannot open WebSockets (only libcurl's can).",
                                     url: link.url)
        }
        let socket = WebSocket(response: response, link: link, session: session)
        if let chosen = socket.subprotocol, !configuration.protocols.contains(chosen) {
            // (The socket closes with 1001 as it goes.)
            throw HTTPTransportError(code: .badResponse, message: "The server chose the subprotocol \"\(chosen)\", which was not offered.",
                                     url: link.url, httpStatusCode: response.httpStatus, responseHeaders: response.rawHeaders)
        }
        return socket
    }

    /// `ws://…` as `http://…` and `wss://…` as `https://…` (the pipeline's schemes).
    static func httpEndpoint(_ endpoint: String) -> String {
        let trimmed = endpoint.drop { $0 == " " }
        if trimmed.lowercased().hasPrefix("wss:") { return "https:" + trimmed.dropFirst(4) }
        if trimmed.lowercased().hasPrefix("ws:") { return "http:" + trimmed.dropFirst(3) }
        return endpoint
    }
}
