import Foundation

/// Which redirects the pipeline follows, and what the next hop's request is (before the hop's
/// interceptors run). The one place that decides "this response is a redirect to follow".
enum RedirectRule {
    /// The next hop's request; `nil` when `response` is not a redirect to follow (not 301, 302,
    /// 303, 307 or 308, no `Location`, or a failure, or it would send a streamed body again); a
    /// failure when it must not be followed.
    static func nextRequest(after request: RawRequest, response: RawResponse,
                            allowsInsecureRedirects: Bool) -> Swift.Result<RawRequest, HTTPTransportError>? {
        guard response.error == nil, let status = response.statusCode?.rawValue, isRedirect(status),
              let location = response.headers.first("Location"), !location.isEmpty
        else { return nil }
        func failure(_ code: HTTPTransportError.Code, _ message: String) -> Swift.Result<RawRequest, HTTPTransportError> {
            .failure(HTTPTransportError(code: code, message: message, url: request.url.absoluteString,
                                        httpStatusCode: response.statusCode, responseHeaders: response.headers,
                                        responseBodyData: response.data))
        }
        guard let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
              target.host?.isEmpty == false  // `http://user@` has a host, an empty one
        else {
            // (Error messages hide the secrets of every URL in them, this Location's included.)
            return failure(.badResponse, "The server redirected to an unusable location '\(location)'.")
        }
        if isHTTPS(request.url), scheme == "http", !allowsInsecureRedirects {
            return failure(.insecureRedirect, "The server redirected from https to plain http (\(target.absoluteString)); not followed. "
                + "Set Session.Configuration.allowsInsecureRedirects to follow such redirects.")
        }
        var next = request
        next.url = target
        next.redirectedFrom = request.url
        let becomesGET = status == 303 ? request.method != .head : (status == 301 || status == 302) && request.method == .post
        // A streamed body is sent once: a redirect that keeps it (307, 308) is the result.
        if !becomesGET, case .stream = request.body { return nil }
        if becomesGET {
            next.method = .get
            next.body = nil
            next.headers.remove("Content-Type")
            next.headers.remove("Content-Length")
        }
        return .success(next)
    }

    /// 301, 302, 303, 307 and 308.
    static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    /// Same scheme, host and port (the default port when none is written).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased()
            && a.host?.lowercased() == b.host?.lowercased()
            && effectivePort(a) == effectivePort(b)
    }

    private static func isHTTPS(_ url: URL) -> Bool { url.scheme?.lowercased() == "https" }

    private static func effectivePort(_ url: URL) -> Int {
        url.port ?? (isHTTPS(url) ? 443 : 80)
    }
}
