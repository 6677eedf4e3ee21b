@testable import HTTPTransport

/// The library calls this target makes (a rename in the library is fixed here only).
enum Library {
    /// A proxy URL checked and taken apart: the URL libcurl gets and the credentials, or the
    /// error's message.
    enum Parsed {
        case accepted(url: String, username: String?, password: String?)
        case refused(message: String)
    }

    static func proxy(_ url: String, username: String? = nil, password: String? = nil) -> Parsed {
        do {
            let parsed = try ProxyURL(Proxy(url, username: username, password: password))
            return .accepted(url: parsed.url, username: parsed.username, password: parsed.password)
        } catch {
            return .refused(message: error.message)
        }
    }

    /// Whether a `no_proxy` list exempts `host`.
    static func noProxyCovers(_ list: String, host: String) -> Bool { NoProxyList(list).covers(host: host) }

    /// The variable and proxy URL libcurl would take from `environment` for a request.
    static func environmentProxy(_ environment: [String: String], scheme: String, host: String) -> (variable: String, url: String)? {
        ProxyEnvironment { environment[$0] }.proxy(scheme: scheme, host: host)
    }
}
