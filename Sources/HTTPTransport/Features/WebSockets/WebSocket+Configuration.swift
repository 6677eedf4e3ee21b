import Foundation

extension WebSocket {
    /// How a WebSocket is opened and kept.
    public struct Configuration: Sendable, Hashable {
        /// Subprotocols offered, in order of preference (`Sec-WebSocket-Protocol`).
        public var protocols: [String]
        /// The largest incoming message in bytes: a larger one closes the socket with 1009 and
        /// fails it with `.responseTooLarge`.
        public var maxMessageSize: Int
        /// Sends a ping after this many seconds without traffic from the peer; no pong within
        /// another interval fails the socket with `.timeout`. nil: no keep-alive.
        public var pingInterval: TimeInterval?
        /// How long `close` (or dropping the socket) waits, from the call, for the close
        /// handshake before it drops the connection.
        public var closeTimeout: TimeInterval

        /// A configuration.
        public init(protocols: [String] = [], maxMessageSize: Int = 16 << 20, pingInterval: TimeInterval? = nil,
                    closeTimeout: TimeInterval = 5) {
            self.protocols = protocols
            self.maxMessageSize = maxMessageSize
            self.pingInterval = pingInterval
            self.closeTimeout = closeTimeout
        }

        /// The loop's settings; a clear error for a value that makes none.
        func settings(pongTimeout: TimeInterval, url: String) throws(HTTPTransportError) -> WebSocketLink.Settings {
            func duration(_ seconds: TimeInterval, _ name: String) throws(HTTPTransportError) -> Duration {
                guard seconds.isFinite, seconds > 0 else {
                    throw HTTPTransportError(code: .encodingFailed, message: "WebSocket.Configuration.\(name) must be a positive number of seconds.", url: url)
                }
                return .milliseconds(Int64((min(seconds, 1_000_000_000) * 1000).rounded(.up)))
            }
            guard maxMessageSize > 0 else {
                throw HTTPTransportError(code: .encodingFailed, message: "WebSocket.Configuration.maxMessageSize must be positive.", url: url)
            }
            for name in protocols where name.isEmpty || name.contains(where: { !$0.isASCII || $0 == "," || $0.isWhitespace }) {
                throw HTTPTransportError(code: .encodingFailed, message: "\"\(name)\" is not a WebSocket subprotocol name.", url: url)
            }
            return WebSocketLink.Settings(
                maxMessageSize: maxMessageSize, pingInterval: try pingInterval.map { seconds throws(HTTPTransportError) in try duration(seconds, "pingInterval") },
                closeTimeout: try duration(closeTimeout, "closeTimeout"),
                pongTimeout: try duration(pongTimeout.isFinite && pongTimeout > 0 ? pongTimeout : 60, "timeout"))
        }
    }
}
