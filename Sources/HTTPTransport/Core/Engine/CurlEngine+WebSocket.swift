import CCurl
import Foundation

/// A WebSocket's handshake as an engine transfer: an HTTP/1.1 upgrade that libcurl makes with
/// `CURLOPT_CONNECT_ONLY` 2 on a `ws://`/`wss://` URL, run on the session's transfer loop, where
/// the connection stays afterwards (`WebSocketHub`).
extension CurlEngine {
    /// Whether this process's libcurl speaks WebSocket (`ws`/`wss` and the `curl_ws_*` API).
    static let supportsWebSockets: Bool = ccurl_ws_available() != 0

    /// Sets a fresh handle up for the upgrade: the WebSocket schemes, the URL in its `ws`
    /// form (the pipeline's is `http`/`https`), HTTP/1.1, the end of the transfer at the 101, and
    /// a CONNECT tunnel through an HTTP proxy.
    func upgradesToWebSocket(_ handle: EasyHandle, url: String) throws(HTTPTransportError) {
        guard Self.supportsWebSockets else { throw Self.webSocketsUnsupported(url: url) }
        do {
            try handle.set(CURLOPT_PROTOCOLS_STR, "ws,wss")
            try handle.set(CURLOPT_URL, Self.webSocketURL(url))
            try handle.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
            try handle.set(CURLOPT_CONNECT_ONLY, Int(CCURL_WS_CONNECT_ONLY))
            // Through an HTTP proxy, a tunnel for ws:// too: libcurl 8.14 would send the proxy
            // `GET ws://…`, which proxies do not upgrade.
            try handle.set(CURLOPT_HTTPPROXYTUNNEL, true)
        } catch {
            throw HTTPTransportError(code: .other, message: error.message, url: url, curlCode: Int(error.code.rawValue))
        }
    }

    /// The handshake's response; the handle goes to the socket (a 101) or is closed. An answer
    /// other than 101, which libcurl refuses, comes back as that answer (validation then fails
    /// it with `.httpStatus`, its body attached).
    func webSocketResponse(to request: RawRequest, of transfer: CurlTransfer, code: CURLcode) -> RawResponse {
        var response = withSentHead(response(to: request, of: transfer, code: code), of: transfer)
        let state = transfer.state
        if code != CURLE_OK, let status = state.statusCode, status != 101, state.headersComplete {
            response = RawResponse(request: request, statusCode: HTTPStatusCode(rawValue: status), headers: state.headers,
                                   data: response.error?.responseBodyData ?? state.takeBody(), metrics: response.metrics)
        }
        // The engine lets go of the handle: the loop may use it from now on (or drops it).
        transfer.handle.transferSlot.pointee.state = nil
        state.end()
        if code == CURLE_OK { request.webSocket?.activate() }
        return response
    }

    /// `http(s)://…` as `ws(s)://…`; any other URL as it is.
    static func webSocketURL(_ url: String) -> String {
        if url.lowercased().hasPrefix("https:") { return "wss:" + url.dropFirst(6) }
        if url.lowercased().hasPrefix("http:") { return "ws:" + url.dropFirst(5) }
        return url
    }

    /// The failure of a WebSocket on a libcurl without them.
    static func webSocketsUnsupported(url: String?) -> HTTPTransportError {
        HTTPTransportError(
            code: .unsupported,
            message: "This process's libcurl (\(libcurlVersion)) has no WebSocket support; WebSockets need libcurl 8.11 or newer "
                + "built with ws/wss. On Debian 12, install libcurl4-openssl-dev from bookworm-backports "
                + "(apt-get install -t bookworm-backports libcurl4-openssl-dev), or use Debian 13.",
            url: url)
    }
}
