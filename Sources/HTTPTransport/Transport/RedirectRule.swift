import Foundation

/// How the pipeline follows a redirect: the next hop's request, built from the previous hop's
/// request before interceptors ran.
enum RedirectRule {
    /// Whether `status` is one of the redirects followed (301, 302, 303, 307, 308).
    static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }
    static let credentialHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// `nil` when the response is not a redirect to follow.
    static func nextRequest(after request: RawRequest, response: RawResponse) -> Swift.Result<RawRequest, HTTPTransportError>? {
        guard let status = response.statusCode?.rawValue, isRedirect(status),
              let location = response.headers.first("Location"), !location.isEmpty
        else { return nil }
        guard let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https", target.host != nil
        else {
            return .failure(HTTPTransportError(
                code: .badResponse, message: "The server redirected to an unusable location '\(location)'.",
                url: request.url.absoluteString, httpStatusCode: response.statusCode, responseHeaders: response.headers,
                responseBodyData: response.data))
        }
        var next = request
        next.url = target
        let becomesGET = status == 303 ? request.method != .head : (status == 301 || status == 302) && request.method == .post
        if becomesGET {
            next.method = .get
            next.body = nil
            next.headers.remove("Content-Type")
            next.headers.remove("Content-Length")
        }
        if !sameOrigin(request.url, target) {
            for name in credentialHeaders { next.headers.remove(name) }
        }
        return .success(next)
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased()
            && a.host?.lowercased() == b.host?.lowercased()
            && effectivePort(a) == effectivePort(b)
    }

    private static func effectivePort(_ url: URL) -> Int {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
