import CCurl
import Foundation

/// What a WebSocket's send, ping and close hand back.
typealias WebSocketOutcome = Result<Void, HTTPTransportError>
/// What a WebSocket's receive hands back: a message, nil once closed, or the failure.
typealias WebSocketReceipt = Result<WebSocketMessage?, HTTPTransportError>

/// One WebSocket connection between the callers of a `WebSocket` (any thread or task) and the
/// session's transfer loop, which alone touches its libcurl handle. Callers queue commands
/// (sends, pings, a close) and take received messages under `lock`; the loop carries them out
/// (`WebSocketLink+Loop.swift`) when woken through its `WebSocketHub`.
final class WebSocketLink: @unchecked Sendable {
    /// The socket's limits and timers.
    struct Settings: Sendable {
        var maxMessageSize: Int
        var pingInterval: Duration?
        var closeTimeout: Duration
        /// How long `ping` waits for its pong (the request's time-out).
        var pongTimeout: Duration
    }

    /// Work for the loop.
    enum Command {
        /// (`message`: its sender's waiter, answered already when the queue had room.)
        case send(flags: Int32, payload: Data, message: WebSocketSend)
        case ping(payload: Data, done: WebSocketHandoff<WebSocketOutcome>)
        case close(code: WebSocketCloseCode, reason: String, done: WebSocketHandoff<WebSocketOutcome>?)
    }

    /// How the socket ended.
    enum Ending {
        case closed
        case failed(HTTPTransportError)
    }

    /// Received bytes held for receivers before the socket stops reading.
    static let bufferLimit = 1 << 20
    /// What keeping one message costs beside its payload (its place in the queue, its storage's
    /// header, a frame's header on the wire), counted against `bufferLimit`, received and to
    /// send, so that a flood of empty messages is bounded too.
    static let messageOverhead = 64

    let settings: Settings
    let url: String
    private let lock = NSLock()
    // Guarded by `lock`.
    private var inbox: [WebSocketMessage] = []
    private var inboxStart = 0
    private var inboxBytes = 0
    /// Queued messages libcurl has not taken yet, each counted as `heldSize`.
    private var outboxBytes = 0
    private var mostOutboxBytes = 0, sendersHeldBack = 0
    private var turnsTaken = 0
    private var mostCarried = 0
    /// A sender withdrew a message the loop may hold already: it drops withdrawn ones.
    private var withdrawals = false
    private var ending: Ending?
    private var receivers: [WebSocketHandoff<WebSocketReceipt>] = []
    private var commands: [Command] = []
    private var peerClose: (code: WebSocketCloseCode, reason: String)?
    private var closing = false
    /// The loop let go of the connection.
    private var gone = false
    /// The loop's hub while it holds the connection.
    private var hub: WebSocketHub?
    private var wasAdopted = false
    private var active = false
    /// The loop thread's own state of the connection (`WebSocketLink+Loop.swift`).
    @exclusivity(unchecked) var connection: WebSocketConnection?

    init(settings: Settings, url: String) {
        self.settings = settings
        self.url = url
    }

    // MARK: Callers (any thread)

    /// Queues a whole message (`CCURL_WS_TEXT` or `CCURL_WS_BINARY`). While less than
    /// `bufferLimit` waits to go out (each message counted as `heldSize`), the sender is
    /// answered at once (a failure later fails the socket, which its receivers hear); beyond
    /// it, once libcurl took the message (back-pressure, also for empty messages).
    func send(flags: Int32, payload: Data) -> WebSocketSend {
        let message = WebSocketSend()
        let size = Self.heldSize(payloadCount: payload.count)
        lock.lock()
        if let refusal {
            lock.unlock()
            message.done.deliver(.failure(refusal))
            return message
        }
        let answered = outboxBytes + size <= Self.bufferLimit
        outboxBytes += size
        mostOutboxBytes = max(mostOutboxBytes, outboxBytes)
        if answered { message.done.deliver(.success(())) } else { sendersHeldBack += 1 }
        commands.append(.send(flags: flags, payload: payload, message: message))
        let hub = active ? hub : nil
        lock.unlock()
        hub?.markDirty(self)
        return message
    }

    /// The sender of `message` (of `payloadCount` bytes) was cancelled while it waited: a
    /// message no byte of which went to libcurl leaves the queue and is never sent (`.cancelled`);
    /// one the loop began goes out whole, and the sender hears it was partly sent (`.other`).
    func withdraw(_ message: WebSocketSend, payloadCount: Int) {
        let partly = HTTPTransportError(
            code: .other, message: "The task was cancelled while its WebSocket message was going out: part of it was sent, so it "
                + "cannot be withdrawn and the rest follows. Do not send it again; close the socket if the peer must not act on it.",
            url: url)
        let cancelled = HTTPTransportError(code: .cancelled, message: "The task was cancelled; its WebSocket message was not sent.", url: url)
        guard message.withdraw(notSent: cancelled, partlySent: partly) else { return }
        lock.lock()
        outboxBytes -= Self.heldSize(payloadCount: payloadCount)
        let queuedBefore = commands.count
        commands.removeAll { if case .send(_, _, let queued) = $0 { queued === message } else { false } }
        // (Not found here: the loop took it; it drops it on its next turn.)
        let held = commands.count == queuedBefore
        if held { withdrawals = true }
        let hub = held && active ? hub : nil
        lock.unlock()
        hub?.markDirty(self)
    }

    /// The loop took (or dropped) a message of `payloadCount` bytes.
    func sent(payloadCount: Int) {
        lock.withLock { outboxBytes -= Self.heldSize(payloadCount: payloadCount) }
    }

    // For tests:
    /// What waits to go out, counted as the bound counts it.
    var queuedBytes: Int { lock.withLock { outboxBytes } }
    /// The most that ever waited to go out, and how many sends were told to wait for room.
    var queueHighWater: (bytes: Int, sendersHeldBack: Int) { lock.withLock { (mostOutboxBytes, sendersHeldBack) } }
    /// Commands the loop has not taken yet.
    var untakenCommands: Int { lock.withLock { commands.count } }
    /// The loop's turns at this socket so far.
    var turns: Int { lock.withLock { turnsTaken } }
    /// Whether the loop let go of the connection.
    var isGone: Bool { lock.withLock { gone } }
    /// The most commands carried out in one turn so far.
    var mostCarriedInATurn: Int { lock.withLock { mostCarried } }
    /// Receivers waiting for a message.
    var waitingReceivers: Int { lock.withLock { receivers.count } }
    /// Messages waiting for a receiver.
    var heldMessages: Int { lock.withLock { inbox.count - inboxStart } }

    /// Queues a ping; delivered once its pong arrived.
    func ping(payload: Data) -> WebSocketHandoff<WebSocketOutcome> {
        let done = WebSocketHandoff<WebSocketOutcome>()
        queue(.ping(payload: payload, done: done), failing: done)
        return done
    }

    /// Queues the close handshake; delivered once it ended (at most `closeTimeout` later).
    func close(code: WebSocketCloseCode, reason: String) -> WebSocketHandoff<WebSocketOutcome> {
        let done = WebSocketHandoff<WebSocketOutcome>()
        lock.lock()
        // (A socket that failed may still wait for the peer's close frame: close waits for it.)
        if gone || (ending != nil && hub == nil) {
            lock.unlock()
            done.deliver(.success(()))
            return done
        }
        closing = true
        commands.append(.close(code: code, reason: reason, done: done))
        let hub = active ? hub : nil
        lock.unlock()
        hub?.markDirty(self)
        return done
    }

    /// Closes with 1001 without waiting (the `WebSocket` went away unclosed).
    func abandon() {
        lock.lock()
        guard ending == nil, !closing else {
            lock.unlock()
            return
        }
        closing = true
        commands.append(.close(code: .goingAway, reason: "", done: nil))
        let hub = active ? hub : nil
        lock.unlock()
        hub?.markDirty(self)
    }

    /// Hands `receiver` the next message, nil once closed, or the failure; or keeps it waiting.
    func receive(_ receiver: WebSocketHandoff<WebSocketReceipt>) {
        lock.lock()
        if inboxStart < inbox.count {
            let message = inbox[inboxStart]
            guard receiver.deliver(.success(message)) else {
                lock.unlock()
                return
            }
            let wasFull = inboxBytes >= Self.bufferLimit
            removeFirstMessage(size: Self.heldSize(payloadCount: message.payloadCount))
            let hub = wasFull && inboxBytes < Self.bufferLimit ? self.hub : nil
            lock.unlock()
            hub?.markDirty(self)
            return
        }
        if let ending {
            lock.unlock()
            receiver.deliver(Self.receipt(for: ending))
            return
        }
        // (Receivers whose tasks were cancelled go: a receive with a time-out, repeated on a
        // quiet socket, must not pile them up.)
        receivers.removeAll { $0.isDelivered }
        receivers.append(receiver)
        lock.unlock()
    }

    /// Whether the handshake opened it (the loop took its connection).
    var isOpen: Bool { lock.withLock { wasAdopted } }

    /// The peer's close code and reason, once known.
    var closeStatus: (code: WebSocketCloseCode, reason: String)? { lock.withLock { peerClose } }

    /// Why no command is taken any more (under `lock`): the socket ended, or is closing.
    private var refusal: HTTPTransportError? {
        if let ending { return Self.error(after: ending, url: url) }
        if closing { return HTTPTransportError(code: .cancelled, message: "The WebSocket is closing.", url: url) }
        return nil
    }

    private func queue(_ command: Command, failing done: WebSocketHandoff<WebSocketOutcome>) {
        lock.lock()
        if let refusal {
            lock.unlock()
            done.deliver(.failure(refusal))
            return
        }
        commands.append(command)
        let hub = active ? hub : nil
        lock.unlock()
        hub?.markDirty(self)
    }

    private func removeFirstMessage(size: Int) {
        inboxStart += 1
        inboxBytes -= size
        if inboxStart == inbox.count {
            inbox.removeAll(keepingCapacity: true)
            inboxStart = 0
        } else if inboxStart > 64, inboxStart * 2 > inbox.count {
            inbox.removeFirst(inboxStart)
            inboxStart = 0
        }
    }

    static func receipt(for ending: Ending) -> WebSocketReceipt {
        switch ending {
        case .closed: return .success(nil)
        case .failed(let error): return .failure(error)
        }
    }

    static func error(after ending: Ending, url: String) -> HTTPTransportError {
        switch ending {
        case .closed: return HTTPTransportError(code: .cancelled, message: "The WebSocket is closed.", url: url)
        case .failed(let error): return error
        }
    }

    // MARK: The loop thread

    /// The handshake's transfer ended with the upgrade: the loop holds the connection now.
    func adopted(by hub: WebSocketHub, connection: WebSocketConnection) {
        self.connection = connection
        lock.withLock {
            self.hub = hub
            wasAdopted = true
        }
    }

    /// The engine is done with the handle: the loop may use it (called once, by the engine).
    func activate() {
        lock.lock()
        active = true
        let hub = self.hub
        lock.unlock()
        hub?.markDirty(self)
    }

    /// The commands queued since the last call, and whether the loop should drop the sends
    /// it holds that were withdrawn since.
    func takeCommands() -> (commands: [Command], withdrawals: Bool) {
        lock.withLock {
            turnsTaken += 1
            defer {
                commands.removeAll(keepingCapacity: true)
                withdrawals = false
            }
            return (commands, withdrawals)
        }
    }

    /// Frames (or parts of frames) the loop reads from one socket in one turn.
    static let readsPerTurn = 256

    /// Queued commands (frames) the loop carries out at one socket in one turn.
    static let sendsPerTurn = 256

    func noteCarried(_ count: Int) {
        lock.withLock { mostCarried = max(mostCarried, count) }
    }

    /// The loop serves the socket again on its next turn, whether or not it is readable then.
    func anotherTurn() {
        let hub = lock.withLock { self.hub }
        hub?.markDirty(self)
    }

    /// Whether receivers hold less than `bufferLimit` (else the loop stops reading).
    var wantsMessages: Bool { lock.withLock { inboxBytes < Self.bufferLimit } }

    /// A message arrived: to the first waiting receiver, else into the inbox.
    func arrived(_ message: WebSocketMessage) {
        lock.lock()
        while !receivers.isEmpty {
            let receiver = receivers.removeFirst()
            if receiver.deliver(.success(message)) {
                lock.unlock()
                return
            }
        }
        inbox.append(message)
        inboxBytes += Self.heldSize(payloadCount: message.payloadCount)
        lock.unlock()
    }

    /// What a message of `payloadCount` bytes counts against `bufferLimit`.
    static func heldSize(payloadCount: Int) -> Int { payloadCount + messageOverhead }

    /// The peer's close frame arrived.
    func peerClosed(code: WebSocketCloseCode, reason: String) {
        lock.withLock { if peerClose == nil { peerClose = (code, reason) } }
    }

    /// The socket ended: waiting receivers get the ending, and so do commands still queued.
    func end(_ ending: Ending, peerCode: WebSocketCloseCode?, gone: Bool = false) {
        lock.lock()
        if gone {
            self.gone = true
            hub = nil
        }
        if self.ending == nil { self.ending = ending }
        if peerClose == nil, let peerCode { peerClose = (peerCode, "") }
        let waiting = receivers
        receivers = []
        let left = commands
        commands = []
        let final = self.ending ?? ending
        lock.unlock()
        for receiver in waiting { receiver.deliver(Self.receipt(for: final)) }
        for command in left { Self.fail(command, Self.error(after: final, url: url), closed: true) }
    }

    /// Hands a command's waiter its failure (a close succeeds once the socket ended).
    static func fail(_ command: Command, _ error: HTTPTransportError, closed: Bool) {
        switch command {
        case .send(_, _, let message): message.done.deliver(.failure(error))
        case .ping(_, let done): done.deliver(.failure(error))
        case .close(_, _, let done): done?.deliver(closed ? .success(()) : .failure(error))
        }
    }
}

extension WebSocketMessage {
    /// The frame type libcurl sends it as.
    var frameFlags: Int32 {
        switch self {
        case .text: Int32(CCURL_WS_TEXT)
        case .binary: Int32(CCURL_WS_BINARY)
        }
    }

    var payload: Data {
        switch self {
        case .text(let text): Data(text.utf8)
        case .binary(let data): data
        }
    }

    /// The payload's size in bytes.
    var payloadCount: Int {
        switch self {
        case .text(let text): return text.utf8.count
        case .binary(let data): return data.count
        }
    }
}

extension WebSocketLink: Hashable {
    static func == (left: WebSocketLink, right: WebSocketLink) -> Bool { left === right }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
