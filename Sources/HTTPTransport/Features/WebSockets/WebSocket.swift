import Foundation

/// An open WebSocket (RFC 6455), made by `HTTPTransport.webSocket(_:configuration:)` or its
/// blocking form `webSocket(request:configuration:)`.
///
/// Every operation comes in both forms: `async` for tasks, blocking for worker threads. Sends
/// from many tasks and threads go out whole, one message after the other; messages arrive in
/// order. While nobody receives, the socket stops reading (about 1 MiB held). The socket waits
/// on its session's transfer loop: an open socket holds no thread. Dropping the last reference
/// closes it with 1001 (going away).
///
/// ```swift
/// let socket = try await transport.webSocket(HTTPRequest(endpoint: "wss://feed.example.com/v1"))
/// try await socket.send(.text("subscribe"))
/// for try await message in socket.messages { handle(message) }
/// ```
public final class WebSocket: Sendable {
    /// The handshake's status (101).
    public let httpStatus: HTTPStatusCode
    /// The handshake response's header fields.
    public let rawHeaders: HTTPHeaders
    /// The subprotocol the server chose (its `Sec-WebSocket-Protocol`), if any.
    public let subprotocol: String?
    let link: WebSocketLink
    /// The session whose transfer loop holds the socket: it lives as long as the socket.
    private let session: Session
    private let iterated = Locked(false)

    init(response: HTTPResponse, link: WebSocketLink, session: Session) {
        httpStatus = response.httpStatus
        rawHeaders = response.rawHeaders
        subprotocol = response.header(named: "Sec-WebSocket-Protocol")
        self.link = link
        self.session = session
    }

    deinit { link.abandon() }

    /// The value of a handshake response header (repeated values joined with `", "`), case-insensitively.
    public func header(named name: String) -> String? { rawHeaders[name] }

    /// The peer's close code once known; `.abnormalClosure` when the connection ended without a
    /// close frame.
    public var closeCode: WebSocketCloseCode? { link.closeStatus?.code }
    /// The peer's close reason once known.
    public var closeReason: String? { link.closeStatus?.reason }

    // MARK: Async

    /// Sends a whole message, after those queued before it: returns once it is queued while
    /// less than about 1 MiB waits to go out (each message counting a little more than its
    /// payload), else once libcurl took it. A send that fails later fails the socket (`receive`
    /// and `messages` throw). Throws when the socket closed.
    ///
    /// Cancelling the task while it waits: a message no byte of which went out yet leaves the
    /// queue and is never sent (`.cancelled`); one already partly sent cannot be withdrawn and
    /// goes out whole, and `send` throws `.other` saying so (do not send it again).
    public func send(_ message: WebSocketMessage) async throws(HTTPTransportError) {
        let payload = message.payload
        let queued = link.send(flags: message.frameFlags, payload: payload)
        try await queued.done.value(onCancel: { [link] in link.withdraw(queued, payloadCount: payload.count) }).get()
    }

    /// The next message; nil once the socket closed (after the close handshake). Throws the
    /// socket's failure, or `.cancelled` when the task is cancelled (the socket stays open).
    public func receive() async throws(HTTPTransportError) -> WebSocketMessage? {
        let receiver = WebSocketHandoff<WebSocketReceipt>()
        link.receive(receiver)
        let receipt = await receiver.value(cancelled: .failure(cancelled()))
        return try receipt.get()
    }

    /// Sends a ping and returns once the peer's pong arrived (`.timeout` when none came within
    /// the request's `timeout`).
    public func ping(_ payload: Data = Data()) async throws(HTTPTransportError) {
        try checkPing(payload)
        try await link.ping(payload: payload).value(cancelled: .failure(cancelled())).get()
    }

    /// Sends the close frame, waits up to `closeTimeout` (from the call, even when the frame cannot
    /// go out) for the peer's, then drops the connection.
    /// A code that is never sent (1005, 1006, 1015, below 1000, 1016-2999, from 5000) fails with
    /// `.encodingFailed` and sends nothing; a reason longer than 123 bytes is cut on a character.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async throws(HTTPTransportError) {
        try checkClose(code)
        try await link.close(code: code, reason: reason).value(cancelled: .failure(cancelled())).get()
    }

    // MARK: Blocking

    /// Sends a whole message (see the async form), blocking the calling thread while more than
    /// about 1 MiB waits to go out. A blocked thread cannot be cancelled: it waits until libcurl
    /// took the message or the socket ended.
    public func send(_ message: WebSocketMessage) throws(HTTPTransportError) {
        try link.send(flags: message.frameFlags, payload: message.payload).done.wait().get()
    }

    /// Blocks until the next message; nil once the socket closed.
    public func receive() throws(HTTPTransportError) -> WebSocketMessage? {
        let receiver = WebSocketHandoff<WebSocketReceipt>()
        link.receive(receiver)
        return try receiver.wait().get()
    }

    /// Sends a ping and blocks until the peer's pong arrived (`.timeout` after the request's `timeout`).
    public func ping(_ payload: Data = Data()) throws(HTTPTransportError) {
        try checkPing(payload)
        try link.ping(payload: payload).wait().get()
    }

    /// Closes (see the async form), blocking the calling thread meanwhile.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") throws(HTTPTransportError) {
        try checkClose(code)
        try link.close(code: code, reason: reason).wait().get()
    }

    // MARK: Messages

    /// The messages in order, for `for try await`: finishes after the close handshake, throws on
    /// failure. Iterate it once (a second iteration fails with `.other`).
    public var messages: Messages { Messages(socket: self) }

    /// The messages of a WebSocket, as an `AsyncSequence`.
    public struct Messages: AsyncSequence, Sendable {
        public typealias Element = WebSocketMessage
        public typealias Failure = HTTPTransportError
        let socket: WebSocket

        public func makeAsyncIterator() -> Iterator {
            Iterator(socket: socket, first: socket.iterated.withLock { iterated in
                defer { iterated = true }
                return !iterated
            })
        }

        /// Receives the messages one by one.
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            public typealias Failure = HTTPTransportError
            let socket: WebSocket
            let first: Bool

            public mutating func next() async throws(HTTPTransportError) -> WebSocketMessage? {
                guard first else {
                    throw HTTPTransportError(code: .other, message: "A WebSocket's messages can be iterated once.", url: socket.link.url)
                }
                return try await socket.receive()
            }
        }
    }

    private func cancelled() -> HTTPTransportError {
        HTTPTransportError(code: .cancelled, message: "The task was cancelled.", url: link.url)
    }

    private func checkClose(_ code: WebSocketCloseCode) throws(HTTPTransportError) {
        guard code.isValidOnTheWire else {
            throw HTTPTransportError(code: .encodingFailed, message: "\(code.rawValue) is not a close code a WebSocket may send.", url: link.url)
        }
    }

    private func checkPing(_ payload: Data) throws(HTTPTransportError) {
        guard payload.count <= 125 else {
            throw HTTPTransportError(code: .encodingFailed, message: "A ping's payload is at most 125 bytes (this one has \(payload.count)).",
                                     url: link.url)
        }
    }
}
