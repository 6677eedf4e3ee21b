import CCurl
import Foundation

/// The loop thread's turn at one WebSocket (`WebSocketHub` calls it when the socket is ready, a
/// caller queued something, or a timer is due): queued frames go out whole and in order,
/// received frames become messages, and the timers (keep-alive, pong, close) are checked.
extension WebSocketLink {
    /// Returns false once the socket ended (the hub then lets go of its handle).
    func service(now: ContinuousClock.Instant, buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard let connection, !connection.ended else { return false }
        let taken = takeCommands()
        if taken.withdrawals { connection.pending.removeAll(where: Self.isWithdrawn) }
        connection.pending += taken.commands
        if connection.closeRequested == nil, taken.commands.contains(where: Self.isClose) { connection.closeRequested = now }
        flush(connection, now: now)
        if !connection.ended, wantsMessages { read(connection, now: now, buffer: buffer) }
        if !connection.ended { checkTimers(connection, now: now) }
        return !connection.ended
    }

    // MARK: Sending

    private func flush(_ connection: WebSocketConnection, now: ContinuousClock.Instant) {
        // (The commands carried out leave at once when the turn ends: one by one, removing the
        // first of 16,000 queued empty messages each time, the loop would take quadratic time.)
        var carried = 0
        do throws(HTTPTransportError) {
            defer { connection.pending.removeFirst(carried) }
            while carried < connection.pending.count {
                guard try carryOut(connection.pending[carried], connection, now: now) else {
                    connection.blockedOnSend = true
                    return
                }
                carried += 1
            }
            connection.blockedOnSend = false
        } catch {
            finish(connection, .failed(error), peerCode: .abnormalClosure)
        }
    }

    /// One command: false when its frame waits for the socket.
    private func carryOut(_ command: Command, _ connection: WebSocketConnection,
                          now: ContinuousClock.Instant) throws(HTTPTransportError) -> Bool {
        switch command {
        case .send(let flags, let payload, let message):
            // (Its cancelled sender took it back before any byte went: it is never sent.)
            guard message.begin() else { return true }
            if connection.closeSent != nil {
                sent(payloadCount: payload.count)
                message.done.deliver(.failure(HTTPTransportError(code: .cancelled, message: "The WebSocket is closing.", url: url)))
                return true
            }
            guard try connection.sendFrame(flags: flags, payload: payload, url: url) else { return false }
            sent(payloadCount: payload.count)
            message.done.deliver(.success(()))
        case .ping(let payload, let done):
            guard try connection.sendFrame(flags: Int32(CCURL_WS_PING), payload: payload, url: url) else { return false }
            connection.pingWaiters.append((now + settings.pongTimeout, done))
        case .close(let code, let reason, let done):
            if connection.closeSent == nil {
                let payload = WebSocketConnection.closePayload(code: code, reason: reason)
                guard try connection.sendFrame(flags: Int32(CCURL_WS_CLOSE), payload: payload, url: url) else { return false }
                connection.closeSent = now
            }
            if let done { connection.closeWaiters.append(done) }
        }
        return true
    }

    private static func isClose(_ command: Command) -> Bool {
        if case .close = command { true } else { false }
    }

    private static func isWithdrawn(_ command: Command) -> Bool {
        if case .send(_, _, let message) = command { message.isWithdrawn } else { false }
    }

    // MARK: Receiving

    private func read(_ connection: WebSocketConnection, now: ContinuousClock.Instant, buffer: UnsafeMutableRawBufferPointer) {
        for _ in 0..<Self.readsPerTurn {
            guard !connection.ended else { return }
            var received = 0
            var frame = ccurl_ws_frame()
            let code = ccurl_ws_recv(connection.handle.curl, buffer.baseAddress, buffer.count, &received, &frame)
            if code == CURLE_AGAIN { return }
            guard code == CURLE_OK else { return connectionEnded(connection, code: code, now: now) }
            connection.lastReceived = now
            connection.keepaliveSent = nil
            take(frame, UnsafeRawBufferPointer(rebasing: buffer[0..<received]), connection, now: now)
            // (A full inbox stops the reading: the peer waits until receivers took some.)
            if frame.bytesleft == 0, !wantsMessages { return }
        }
        // A peer that never pauses (endless fragments that add nothing, a fast feed) keeps the
        // socket readable: the loop's other transfers and sockets, and this one's timers, take
        // their turns before it reads on.
        anotherTurn()
    }

    private func take(_ frame: ccurl_ws_frame, _ bytes: UnsafeRawBufferPointer, _ connection: WebSocketConnection,
                      now: ContinuousClock.Instant) {
        let flags = frame.flags
        if flags & Int32(CCURL_WS_CLOSE) != 0 {
            connection.controlPayload.append(contentsOf: bytes)
            if frame.bytesleft == 0 { closeArrived(connection, now: now) }
            return
        }
        if flags & Int32(CCURL_WS_PONG) != 0 {
            if frame.bytesleft == 0 { pongArrived(connection) }
            return
        }
        // Pings are answered by libcurl; anything else that is not data is skipped, and so is
        // data after a violation (the socket failed: only the peer's close frame matters).
        guard flags & Int32(CCURL_WS_TEXT | CCURL_WS_BINARY) != 0, !connection.discarding else { return }
        if !connection.assembling {
            connection.assembling = true
            connection.assemblesText = flags & Int32(CCURL_WS_TEXT) != 0
        }
        let room = Int64(settings.maxMessageSize) - Int64(connection.assembly.count) - Int64(bytes.count)
        guard room >= 0, Int64(frame.bytesleft) <= room else {
            return violation(connection, closing: .messageTooBig, now: now, error: HTTPTransportError(
                code: .responseTooLarge, message: "A WebSocket message was larger than maxMessageSize (\(settings.maxMessageSize) bytes).",
                url: url))
        }
        connection.assembly.append(contentsOf: bytes)
        guard frame.bytesleft == 0, flags & Int32(CCURL_WS_CONT) == 0 else { return }
        let payload = connection.assembly
        connection.assembly = Data()
        connection.assembling = false
        if connection.assemblesText {
            guard let text = String(validating: payload, as: UTF8.self) else {
                return violation(connection, closing: .invalidFramePayloadData, now: now, error: HTTPTransportError(
                    code: .badResponse, message: "A WebSocket text message was not valid UTF-8.", url: url))
            }
            arrived(.text(text))
        } else {
            arrived(.binary(payload))
        }
    }

    private func pongArrived(_ connection: WebSocketConnection) {
        let waiting = connection.pingWaiters
        connection.pingWaiters = []
        for waiter in waiting { waiter.done.deliver(.success(())) }
    }

    /// The peer's close frame: its code and reason are kept, it is answered with its own code
    /// (unless we closed first), and the socket ends. A close frame that breaks RFC 6455's rules
    /// (a lone byte, a code that is never sent, a reason that is not UTF-8) is answered with
    /// 1002 (1007 for the reason) and fails the socket, unless it answered our own close.
    private func closeArrived(_ connection: WebSocketConnection, now: ContinuousClock.Instant) {
        let payload = [UInt8](connection.controlPayload)
        let code = payload.count >= 2 ? WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1])) : .noStatusReceived
        let reason = payload.count > 2 ? String(validating: payload[2...], as: UTF8.self) : ""
        peerClosed(code: code, reason: reason ?? "")
        let broken: (answer: WebSocketCloseCode, problem: String)? =
            if payload.count == 1 { (.protocolError, "a close frame of one byte") }
            else if payload.count >= 2, !code.isValidOnTheWire { (.protocolError, "the close code \(code.rawValue)") }
            else if reason == nil { (.invalidFramePayloadData, "a close reason that is not UTF-8") }
            else { nil }
        // (After our own close, the peer's answer ends the socket normally whatever it holds.)
        let answers = connection.closeSent == nil
        if answers {
            connection.sendOffset = 0
            let answer = broken.map { WebSocketConnection.closePayload(code: $0.answer, reason: "") }
                ?? (payload.count >= 2 ? Data(payload[0..<2]) : Data())
            _ = try? connection.sendFrame(flags: Int32(CCURL_WS_CLOSE), payload: answer, url: url)
            connection.closeSent = now
        }
        guard let broken, answers else { return finish(connection, .closed, peerCode: nil) }
        finish(connection, .failed(HTTPTransportError(
            code: .badResponse, message: "The WebSocket peer broke the protocol: \(broken.problem).", url: url)), peerCode: nil)
    }

    /// The connection ended (or libcurl refused a frame) without a close handshake.
    private func connectionEnded(_ connection: WebSocketConnection, code: CURLcode, now: ContinuousClock.Instant) {
        if connection.closeSent != nil { return finish(connection, .closed, peerCode: .abnormalClosure) }
        if code == CURLE_GOT_NOTHING {
            return finish(connection, .failed(HTTPTransportError(
                code: .badResponse, message: "The WebSocket connection ended without a close frame.", url: url,
                curlCode: Int(code.rawValue))), peerCode: .abnormalClosure)
        }
        let detail = WebSocketConnection.describe(code, connection.handle)
        violation(connection, closing: .protocolError, now: now, error: HTTPTransportError(
            code: .badResponse, message: "The WebSocket peer broke the protocol: \(detail).", url: url, curlCode: Int(code.rawValue)))
    }

    /// The peer broke a rule: the socket fails now, and closes with `code` (waiting for the
    /// peer's close frame up to `closeTimeout`).
    private func violation(_ connection: WebSocketConnection, closing code: WebSocketCloseCode,
                           now: ContinuousClock.Instant, error: HTTPTransportError) {
        end(.failed(error), peerCode: nil)
        connection.discarding = true
        connection.assembly = Data()
        connection.assembling = false
        guard connection.closeSent == nil else { return }
        connection.pending.insert(.close(code: code, reason: "", done: nil), at: 0)
        connection.closeRequested = now
        connection.sendOffset = 0
        flush(connection, now: now)
    }

    // MARK: Timers and the end

    private func checkTimers(_ connection: WebSocketConnection, now: ContinuousClock.Instant) {
        // (From the close's request: its frame may wait behind others for a peer that stopped reading.)
        if let closing = connection.closingSince, now >= closing + settings.closeTimeout {
            return finish(connection, .closed, peerCode: .abnormalClosure)
        }
        let expired = connection.pingWaiters.filter { $0.deadline <= now }
        if !expired.isEmpty {
            connection.pingWaiters.removeAll { $0.deadline <= now }
            let error = HTTPTransportError(code: .timeout, message: "No pong arrived within the request's timeout.", url: url)
            for waiter in expired { waiter.done.deliver(.failure(error)) }
        }
        guard let interval = settings.pingInterval, connection.closingSince == nil else { return }
        if let sent = connection.keepaliveSent {
            guard now >= sent + interval else { return }
            return finish(connection, .failed(HTTPTransportError(
                code: .timeout, message: "The WebSocket peer answered no ping within pingInterval.", url: url)),
                          peerCode: .abnormalClosure)
        }
        guard now >= connection.lastReceived + interval else { return }
        connection.keepaliveSent = now
        // (Its pong is awaited by nobody: the keep-alive's own deadline is `keepaliveSent`.)
        connection.pending.append(.ping(payload: Data(), done: WebSocketHandoff()))
        flush(connection, now: now)
    }

    /// The socket ends: every waiter hears how.
    func finish(_ connection: WebSocketConnection, _ ending: Ending, peerCode: WebSocketCloseCode?) {
        guard !connection.ended else { return }
        connection.ended = true
        end(ending, peerCode: peerCode, gone: true)
        for waiter in connection.closeWaiters { waiter.deliver(.success(())) }
        connection.closeWaiters = []
        let error = Self.error(after: ending, url: url)
        for waiter in connection.pingWaiters { waiter.done.deliver(.failure(error)) }
        connection.pingWaiters = []
        for command in connection.pending { Self.fail(command, error, closed: true) }
        connection.pending = []
    }
}
