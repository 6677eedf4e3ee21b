import Foundation
import HTTPTransport

/// Where a Redis server listens and how to log in, read from a URL:
/// `redis://[user:password@]host:port[/db]` or `unix:///path/to/redis.sock`.
struct RedisEndpoint: Sendable, CustomStringConvertible, CustomReflectable {
    enum Address: Sendable {
        case tcp(host: String, port: Int)
        case unix(path: String)
    }

    let address: Address
    let user: String?
    let password: String?
    let database: Int

    init(url: URL) throws(HTTPTransportError) {
        let text = url.absoluteString
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased() else {
            throw Self.invalid(text, "it is not a URL")
        }
        user = components.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding }
        password = components.password.flatMap { $0.removingPercentEncoding }
        switch scheme {
        case "redis":
            guard let host = components.host, !host.isEmpty else { throw Self.invalid(text, "it names no host") }
            let port = components.port ?? 6379
            guard (1...65_535).contains(port) else { throw Self.invalid(text, "its port is out of range") }
            address = .tcp(host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: port)
            let path = components.path.split(separator: "/")
            // Digits only (no sign), within the range of Redis's database numbers (a C int).
            guard path.count <= 1, path.allSatisfy({ $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
                  let database = path.isEmpty ? 0 : Int32(path[0]).map(Int.init) else {
                throw Self.invalid(text, "its path must be empty or a database number (redis://host:6379/2)")
            }
            self.database = database
        case "unix":
            guard components.host?.isEmpty ?? true, components.path.hasPrefix("/"), components.path.count > 1 else {
                throw Self.invalid(text, "a Unix socket URL is unix:///path/to/redis.sock")
            }
            // sockaddr_un holds 107 bytes and a NUL; hiredis would cut a longer path silently.
            guard components.path.utf8.count <= 107, !components.path.utf8.contains(0) else {
                throw Self.invalid(text, "a Unix socket path is at most 107 bytes")
            }
            address = .unix(path: components.path)
            database = 0
        default:
            throw Self.invalid(text, "its scheme must be redis or unix")
        }
    }

    /// The address without the credentials, for messages.
    var description: String {
        switch address {
        case .tcp(let host, let port): "redis://\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
        case .unix(let path): "unix://\(path)"
        }
    }

    /// The address only: `dump()` and reflection never show the credentials.
    var customMirror: Mirror { Mirror(self, children: ["address": description]) }

    private static func invalid(_ url: String, _ why: String) -> HTTPTransportError {
        let shown = url.replacingOccurrences(of: #"//[^/@]*@"#, with: "//…@", options: .regularExpression)
        return HTTPTransportError(code: .invalidURL,
                                  message: "The Redis URL \(shown) is not usable: \(why). Use redis://[user:password@]host:port[/db] or unix:///path/to/redis.sock.",
                                  url: shown)
    }
}
