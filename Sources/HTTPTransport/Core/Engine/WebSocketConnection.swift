import CCurl
import Foundation

/// The loop thread's state of one open WebSocket: its handle and socket, the frame being sent,
/// the message being reassembled, and its timers. Only the loop thread touches it.
final class WebSocketConnection {
    let handle: EasyHandle
    let socket: Int32
    /// Commands taken from the link, in order; the first may be part sent.
    var pending: [WebSocketLink.Command] = []
    /// Payload bytes of the first pending frame libcurl took so far.
    var sendOffset = 0
    /// The socket was full: wait until it is writable.
    var blockedOnSend = false
    /// The data message being reassembled from its frames.
    var assembly = Data()
    var assemblesText = false
    var assembling = false
    /// The socket failed on a violation: data frames are dropped until the close ends it.
    var discarding = false
    /// A close frame's payload, gathered.
    var controlPayload = Data()
    var lastReceived: ContinuousClock.Instant
    /// When the keep-alive ping went out, until something arrives.
    var keepaliveSent: ContinuousClock.Instant?
    /// `ping` callers waiting for a pong, with their deadlines.
    var pingWaiters: [(deadline: ContinuousClock.Instant, done: WebSocketHandoff<WebSocketOutcome>)] = []
    /// When our close frame went out.
    var closeSent: ContinuousClock.Instant?
    /// When the loop took a close (the caller's, the 1001 of a dropped socket, or a violation's):
    /// `closeTimeout` runs from then, whether or not the frame can go out (a peer that stopped
    /// reading never lets it).
    var closeRequested: ContinuousClock.Instant?
    var closeWaiters: [WebSocketHandoff<WebSocketOutcome>] = []
    var ended = false

    init(handle: EasyHandle, socket: Int32, now: ContinuousClock.Instant) {
        self.handle = handle
        self.socket = socket
        lastReceived = now
    }

    /// When the close began: asked for, or (answering the peer's) sent.
    var closingSince: ContinuousClock.Instant? { closeRequested ?? closeSent }

    /// When the connection's timers next need a look (nil: none runs).
    func nextDeadline(_ settings: WebSocketLink.Settings) -> ContinuousClock.Instant? {
        var next: ContinuousClock.Instant?
        func consider(_ instant: ContinuousClock.Instant) { next = next.map { min($0, instant) } ?? instant }
        if let closing = closingSince { consider(closing + settings.closeTimeout) }
        for waiter in pingWaiters { consider(waiter.deadline) }
        if let interval = settings.pingInterval, closingSince == nil {
            consider((keepaliveSent ?? lastReceived) + interval)
        }
        return next
    }

    /// Sends (the rest of) one frame: true once libcurl took all of it, false when the socket is
    /// full (the rest goes when it is writable).
    func sendFrame(flags: Int32, payload: Data, url: String) throws(HTTPTransportError) -> Bool {
        while true {
            var sent = 0
            let offset = sendOffset
            let code = payload.withUnsafeBytes { bytes in
                // (An empty payload: libcurl takes a zero length with any pointer.)
                withUnsafeBytes(of: 0 as UInt8) { empty in
                    let start = bytes.baseAddress.map { $0 + offset } ?? empty.baseAddress
                    return ccurl_ws_send(handle.curl, start, bytes.count - offset, &sent, UInt32(flags))
                }
            }
            sendOffset += sent
            if code == CURLE_AGAIN { return false }
            guard code == CURLE_OK else {
                sendOffset = 0
                throw HTTPTransportError(code: .badResponse, message: "Sending on the WebSocket failed: \(Self.describe(code, handle)).",
                                         url: url, curlCode: Int(code.rawValue))
            }
            if sendOffset >= payload.count {
                sendOffset = 0
                return true
            }
        }
    }

    /// What libcurl said of a failure.
    static func describe(_ code: CURLcode, _ handle: EasyHandle) -> String {
        let detail = String(cString: handle.errorBuffer)
        if !detail.isEmpty { return detail }
        return curl_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
    }

    /// A close frame's payload: the code (big-endian), then the reason, cut to fit 125 bytes
    /// on a character boundary.
    static func closePayload(code: WebSocketCloseCode, reason: String) -> Data {
        var payload = Data([UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)])
        var reasonBytes = 0
        for character in reason {
            let count = character.utf8.count
            guard reasonBytes + count <= 123 else { break }
            payload.append(contentsOf: character.utf8)
            reasonBytes += count
        }
        return payload
    }
}

extension WebSocketCloseCode {
    /// Whether a close frame may carry this code (RFC 6455 §7.4): 1000-1003, 1007-1014 (the
    /// registered ones; 1005, 1006 and 1015 are never sent) and 3000-4999 (libraries' and
    /// applications' own).
    var isValidOnTheWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}
