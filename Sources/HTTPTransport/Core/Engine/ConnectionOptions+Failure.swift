import CCurl
import Foundation

extension ConnectionOptions {
    /// The error of a failed transfer when the session's connection options explain it (a
    /// refused address, a proxy's refusal of a tunnel, a stall, a missing Unix socket, an h2c
    /// server), or `nil` to leave it to the general mapping.
    func failure(code: CURLcode, handle: EasyHandle, context: ConnectionContext, request: RawRequest,
                 url: String) -> HTTPTransportError? {
        guard code != CURLE_OK else { return nil }
        let curlMessage = handle.errorMessage
        let curlText = curlMessage ?? String(cString: curl_easy_strerror(code))
        let host = request.url.host ?? ""
        func error(_ kind: HTTPTransportError.Code, _ message: String, status: Int? = nil) -> HTTPTransportError {
            HTTPTransportError(code: kind, message: message, url: url, httpStatusCode: status.map(HTTPStatusCode.init(rawValue:)),
                               curlCode: Int(code.rawValue), curlMessage: curlMessage)
        }

        if code == CURLE_COULDNT_CONNECT, !context.refusals.isEmpty {
            let refused = context.refusals.map { "\($0.peer) (\($0.reason))" }.joined(separator: ", ")
            return error(.addressNotAllowed, "The session's addressPolicy (\(addressPolicy.name)) refused to connect to \(refused) for \(host); nothing was sent.")
        }
        var connectCode = 0
        if ccurl_getinfo_long(handle.curl, CURLINFO_HTTP_CONNECTCODE, &connectCode) == CURLE_OK, connectCode >= 300 {
            let status = HTTPStatusCode(rawValue: connectCode)
            var message = "The proxy answered \(connectCode) \(status.reasonPhrase) when asked for a tunnel (CONNECT) to \(host):\(request.url.port ?? 443)."
            if connectCode == 407 {
                message += " Give the proxy's credentials as Proxy(url, username:, password:); a Proxy-Authorization header on the request is never sent."
            }
            return error(.httpStatus, message, status: connectCode)
        }
        guard case .success(let settings) = settings else { return nil }
        switch code {
        case CURLE_OPERATION_TIMEDOUT where settings.lowSpeedTime != nil && curlText.contains("too slow"):
            let seconds = settings.lowSpeedTime ?? 0
            return error(.timeout, "The transfer stalled: no data moved for \(seconds) s (the session's stallTimeout), though the request's time-out had not run out. libcurl: \(curlText)")
        case CURLE_UNSUPPORTED_PROTOCOL where curlText.contains("HTTP/0.9")
            && settings.httpVersion != Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE) && request.url.scheme?.lowercased() == "http":
            return error(.badResponse, "The server did not answer in HTTP/1 (\(curlText)). If it speaks HTTP/2 without TLS (h2c, such as nginx's `listen … http2;` without ssl), set Session.Configuration.httpVersion = .http2PriorKnowledge.")
        case CURLE_COULDNT_CONNECT where settings.unixSocketPath != nil:
            let path = settings.unixSocketPath ?? ""
            var info = stat()
            let problem = stat(path, &info) != 0
                ? "it does not exist (\(String(cString: strerror(errno)))); is the service running?"
                : (info.st_mode & S_IFMT) != S_IFSOCK ? "it is not a socket" : "nothing accepted the connection (\(curlText))"
            return error(.cannotConnect, "Could not connect to the Unix socket \(path) (the session's unixSocketPath): \(problem)")
        case CURLE_PROXY:
            return error(.cannotConnect, "The SOCKS proxy refused or could not make the connection to \(host): \(curlText)")
        case CURLE_COULDNT_RESOLVE_PROXY:
            return error(.nameResolution, "Could not resolve the proxy's host name: \(curlText)")
        case CURLE_COULDNT_CONNECT where route(for: request) != .direct:
            return error(.cannotConnect, "Could not connect to the proxy: \(curlText)")
        default:
            return nil
        }
    }
}
