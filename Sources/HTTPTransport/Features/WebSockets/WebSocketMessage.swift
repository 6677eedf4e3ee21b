import Foundation

/// One whole WebSocket message (RFC 6455), its fragments reassembled.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message (valid UTF-8).
    case text(String)
    /// A binary message.
    case binary(Data)
}

/// A WebSocket close code (RFC 6455 §7.4): the named ones, or any other number.
public struct WebSocketCloseCode: Sendable, Hashable, RawRepresentable {
    /// The code's number.
    public var rawValue: UInt16

    /// The code numbered `rawValue`.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the endpoint goes away (a server shutting down, a client leaving).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: a protocol error.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: data of a kind the endpoint does not accept.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: the close frame carried no code (never sent).
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection ended without a close frame (never sent).
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a message's data was not of its type (text that is not UTF-8).
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message broke the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message was too big to take.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: the server did not agree to an extension the client needs.
    public static let mandatoryExtension = WebSocketCloseCode(rawValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = WebSocketCloseCode(rawValue: 1011)
}
