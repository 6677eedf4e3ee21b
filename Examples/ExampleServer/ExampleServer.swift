import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for the examples: keep-alive, `Content-Length` bodies,
/// one thread per connection, routes given as a closure. Not for production; it exists so every
/// example runs offline against a server it starts itself.
public final class ExampleServer: @unchecked Sendable {
    /// A received request.
    public struct Request: Sendable {
        public let method: String
        public let path: String
        public let query: [String: String]
        public let headers: [String: String]  // lower-cased names
        public let body: Data

        /// The body parsed as a JSON object.
        public var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        }

        /// The value of a cookie sent in the `Cookie` header.
        public func cookie(_ name: String) -> String? {
            for pair in (headers["cookie"] ?? "").split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name { return String(parts[1]) }
            }
            return nil
        }
    }

    /// A response to send.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: Data

        public init(status: Int = 200, headers: [(String, String)] = [], body: Data = Data()) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A JSON response.
        public static func json(_ object: Any, status: Int = 200, headers: [(String, String)] = []) -> Response {
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return Response(status: status, headers: [("Content-Type", "application/json")] + headers, body: data)
        }
    }

    /// The port the server listens on.
    public let port: Int
    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private let listener: Int32
    private let handler: @Sendable (Request) -> Response

    /// Starts listening on an ephemeral port of 127.0.0.1.
    public init(handler: @escaping @Sendable (Request) -> Response) throws {
        self.handler = handler
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ServerError.socket }
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(listener, pointer, length) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound, listen(listener, 128) == 0 else { throw ServerError.socket }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    enum ServerError: Error { case socket }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            var yes: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        let separator = Data("\r\n\r\n".utf8)
        while true {
            // Read the head.
            var headEnd = buffer.range(of: separator)
            while headEnd == nil {
                let count = recv(connection, &chunk, chunk.count, 0)
                if count <= 0 { return }
                buffer.append(contentsOf: chunk[0..<count])
                headEnd = buffer.range(of: separator)
            }
            guard let end = headEnd else { return }
            let head = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
            buffer = Data(buffer[end.upperBound...])
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ")
            guard requestLine.count >= 2 else { return }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            while buffer.count < length {
                let count = recv(connection, &chunk, chunk.count, 0)
                if count <= 0 { return }
                buffer.append(contentsOf: chunk[0..<count])
            }
            let body = Data(buffer.prefix(length))
            buffer = Data(buffer.dropFirst(length))
            let target = String(requestLine[1])
            let pathAndQuery = target.split(separator: "?", maxSplits: 1)
            var query: [String: String] = [:]
            if pathAndQuery.count == 2 {
                for pair in pathAndQuery[1].split(separator: "&") {
                    let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                    query[parts[0]] = parts.count > 1 ? parts[1] : ""
                }
            }
            let request = Request(method: String(requestLine[0]), path: String(pathAndQuery.first ?? ""), query: query,
                                  headers: headers, body: body)
            let response = handler(request)
            var text = "HTTP/1.1 \(response.status) \(response.status < 400 ? "OK" : "Error")\r\n"
            for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
            text += "Content-Length: \(response.body.count)\r\n\r\n"
            var output = Data(text.utf8)
            if request.method != "HEAD" { output.append(response.body) }
            var sent = 0
            while sent < output.count {
                let count = output.withUnsafeBytes { send(connection, $0.baseAddress.map { $0 + sent }, output.count - sent, Int32(MSG_NOSIGNAL)) }
                if count <= 0 { return }
                sent += count
            }
            if headers["connection"]?.lowercased() == "close" { return }
        }
    }
}
