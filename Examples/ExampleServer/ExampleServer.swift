import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for the examples: keep-alive, `Content-Length` and
/// chunked request bodies, `Expect: 100-continue`, one thread per connection, routes given as
/// a closure. Not for production; it exists so every example runs offline against a server it
/// starts itself.
///
/// ```swift
/// let server = try ExampleServer { request in
///     request.path == "/hello" ? .json(["hello": "world"]) : .json(["code": "not_found"], status: 404)
/// }
/// defer { server.stop() }
/// print(server.baseURL)   // http://127.0.0.1:PORT
/// ```
public final class ExampleServer: Sendable {
    /// A received request.
    public struct Request: Sendable {
        public let method: String
        /// The path without the query, e.g. `/node/1`.
        public let path: String
        /// Query parameters, percent-decoded (`+` read as a space); the last of a repeated name wins.
        public let query: [String: String]
        public let headers: [String: String]  // lower-cased names
        public let body: Data

        /// The path split at `/`, e.g. `["node", "1"]` for `/node/1`.
        public var pathComponents: [String] { path.split(separator: "/").map(String.init) }

        /// A header's value (the name compares case-insensitively).
        public func header(_ name: String) -> String? { headers[name.lowercased()] }

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

        /// A body sent as it is produced (chunked): called with a function that sends one piece
        /// and answers `false` once the client is gone.
        public var stream: (@Sendable (_ send: (Data) -> Bool) -> Void)?

        /// After a 101, the connection is a WebSocket run by this closure (`webSocket(for:_:)`).
        public var webSocket: (@Sendable (WebSocketPeer) -> Void)?

        public init(status: Int = 200, headers: [(String, String)] = [], body: Data = Data()) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A response whose body is sent piece by piece as `produce` hands the pieces over
        /// (e.g. an NDJSON feed).
        public static func streamed(status: Int = 200, headers: [(String, String)] = [],
                                    _ produce: @escaping @Sendable (_ send: (Data) -> Bool) -> Void) -> Response {
            var response = Response(status: status, headers: headers + [("Transfer-Encoding", "chunked")])
            response.stream = produce
            return response
        }

        /// A JSON response.
        public static func json(_ object: Any, status: Int = 200, headers: [(String, String)] = []) -> Response {
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return Response(status: status, headers: [("Content-Type", "application/json")] + headers, body: data)
        }

        /// A plain-text response.
        public static func text(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> Response {
            Response(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers, body: Data(text.utf8))
        }

        /// A response without a body (e.g. `204 No Content`).
        public static func empty(status: Int = 204, headers: [(String, String)] = []) -> Response {
            Response(status: status, headers: headers)
        }
    }

    /// The port the server listens on.
    public let port: Int
    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// Requests answered so far.
    public var requestCount: Int { served.load(ordering: .relaxed) }

    private let listener: Int32
    private let handler: @Sendable (Request) -> Response
    private let served = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    /// Starts listening on 127.0.0.1, on `port` (0: an ephemeral port).
    public init(port requestedPort: Int = 0, handler: @escaping @Sendable (Request) -> Response) throws {
        guard (0...65535).contains(requestedPort) else { throw ServerError.port }
        self.handler = handler
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ServerError.socket }
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(requestedPort).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(listener, pointer, length) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound, listen(listener, 128) == 0 else {
            close(listener)
            throw ServerError.socket
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "ExampleServer.accept"
        thread.start()
    }

    /// Stops accepting connections (connections already open are served until they close).
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))  // wakes the blocked accept()
    }

    enum ServerError: Error { case socket, port }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let connection = accept(listener, nil, nil)
            if stopped.load(ordering: .acquiring) {
                if connection >= 0 { close(connection) }
                return
            }
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            var yes: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var reader = Reader(connection: connection)
        while let request = readRequest(from: &reader, answeringContinueOn: connection) {
            let response = handler(request)
            served.add(1, ordering: .relaxed)
            guard write(Self.encode(response, forMethod: request.method), to: connection) else { return }
            if let session = response.webSocket { return session(WebSocketPeer(connection: connection)) }
            if let stream = response.stream, request.method != "HEAD" {
                var open = true
                stream { piece in
                    open = open && (piece.isEmpty || write(Data("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Data("\r\n".utf8), to: connection))
                    return open
                }
                guard open, write(Data("0\r\n\r\n".utf8), to: connection) else { return }
            }
            if request.headers["connection"]?.lowercased() == "close" { return }
        }
    }

    /// The next request on the connection (its head, then its body by length or chunks), or nil
    /// when the connection ends or sends something unreadable.
    private func readRequest(from reader: inout Reader, answeringContinueOn connection: Int32) -> Request? {
        guard let head = reader.readHead() else { return nil }
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if headers["expect"]?.lowercased() == "100-continue", !write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8), to: connection) {
            return nil
        }
        let body: Data
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            guard let chunked = reader.readChunkedBody() else { return nil }
            body = chunked
        } else {
            guard let plain = reader.read(count: Int(headers["content-length"] ?? "0") ?? 0) else { return nil }
            body = plain
        }
        let pathAndQuery = requestLine[1].split(separator: "?", maxSplits: 1)
        return Request(method: String(requestLine[0]), path: String(pathAndQuery.first ?? ""),
                       query: pathAndQuery.count == 2 ? Self.decodeQuery(pathAndQuery[1]) : [:],
                       headers: headers, body: body)
    }

    /// `a=1&b=x+y` as a dictionary, `+` and percent-escapes decoded (the last of repeated names wins).
    private static func decodeQuery(_ query: Substring) -> [String: String] {
        var decoded: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { part in
                let text = String(part).replacingOccurrences(of: "+", with: " ")
                return text.removingPercentEncoding ?? text
            }
            decoded[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return decoded
    }

    /// The response's bytes: status line, headers, `Content-Length` and body where a body is allowed.
    private static func encode(_ response: Response, forMethod method: String) -> Data {
        var text = "HTTP/1.1 \(response.status) \(reasonPhrase(response.status))\r\n"
        for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
        let bodyAllowed = response.status != 204 && response.status != 304 && !(100..<200).contains(response.status)
        if bodyAllowed, response.stream == nil { text += "Content-Length: \(response.body.count)\r\n" }
        text += "\r\n"
        var output = Data(text.utf8)
        if method != "HEAD", bodyAllowed { output.append(response.body) }
        return output
    }

    private func write(_ data: Data, to connection: Int32) -> Bool {
        var sent = 0
        while sent < data.count {
            let count = data.withUnsafeBytes {
                send(connection, $0.baseAddress.map { $0 + sent }, data.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { return false }
            sent += count
        }
        return true
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 409: "Conflict"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: status < 400 ? "OK" : "Error"
        }
    }

    /// Buffered reads from one connection.
    private struct Reader {
        let connection: Int32
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)

        init(connection: Int32) { self.connection = connection }

        /// Reads more bytes into the buffer; `false` at the end of the stream.
        mutating func fill() -> Bool {
            let count = recv(connection, &chunk, chunk.count, 0)
            if count <= 0 { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }

        /// Everything up to the next `separator`, which is consumed too.
        mutating func read(until separator: Data) -> Data? {
            while true {
                if let range = buffer.range(of: separator) {
                    let result = Data(buffer[buffer.startIndex..<range.lowerBound])
                    buffer = Data(buffer[range.upperBound...])
                    return result
                }
                guard fill() else { return nil }
            }
        }

        /// The request line and headers.
        mutating func readHead() -> String? {
            read(until: Data("\r\n\r\n".utf8)).map { String(decoding: $0, as: UTF8.self) }
        }

        /// Exactly `count` bytes; nil for a negative count (a bad length or chunk size).
        mutating func read(count: Int) -> Data? {
            guard count >= 0 else { return nil }
            while buffer.count < count { guard fill() else { return nil } }
            let result = Data(buffer.prefix(count))
            buffer = Data(buffer.dropFirst(count))
            return result
        }

        /// A `Transfer-Encoding: chunked` body (trailers are read and dropped).
        mutating func readChunkedBody() -> Data? {
            var body = Data()
            let crlf = Data("\r\n".utf8)
            while true {
                guard let sizeLine = read(until: crlf) else { return nil }
                let sizeText = String(decoding: sizeLine, as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
                if size == 0 {
                    // Trailers, up to an empty line.
                    while let line = read(until: crlf), !line.isEmpty {}
                    return body
                }
                guard let data = read(count: size), read(count: 2) != nil else { return nil }
                body.append(data)
            }
        }
    }
}
