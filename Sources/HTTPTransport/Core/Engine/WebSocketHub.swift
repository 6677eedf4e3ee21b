import CCurl
import Foundation

/// The open WebSockets of one session's transfer loop. Their sockets wait in the loop's own poll
/// (`curl_multi_poll`, as extra descriptors), so an open socket holds no thread: the loop thread
/// reads and writes each one when it is ready, when a caller queued work (`markDirty`, which
/// wakes the poll), or when one of its timers is due.
///
/// The handshake is a transfer of the loop's multi handle with `CURLOPT_CONNECT_ONLY` 2; its
/// handle stays in the multi handle afterwards (libcurl finds the connection through it), until
/// the socket ends.
final class WebSocketHub: @unchecked Sendable {
    private let multi: any LoopMulti
    private let lock = NSLock()
    // Guarded by `lock`, which already keeps any two accesses apart: no dynamic exclusivity
    // check on top (the loop looks at them every round).
    /// Each link once, however many times it was marked since the last turn (a burst of 100,000
    /// sends must not make 100,000 turns of one socket in the next round).
    @exclusivity(unchecked) private var dirty: [WebSocketLink] = []
    @exclusivity(unchecked) private var dirtyIDs: Set<ObjectIdentifier> = []
    @exclusivity(unchecked) private var stopped = false
    // The loop thread's own.
    @exclusivity(unchecked) private var adopted: [ObjectIdentifier: WebSocketLink] = [:]
    @exclusivity(unchecked) private var sockets: [ObjectIdentifier: WebSocketLink] = [:]
    @exclusivity(unchecked) private var descriptors: [curl_waitfd] = []
    @exclusivity(unchecked) private var polled: [WebSocketLink] = []
    @exclusivity(unchecked) private(set) var nextDeadline: ContinuousClock.Instant?
    /// Handshakes on the multi handle: each holds a connection of the pool already.
    @exclusivity(unchecked) private var handshakes = 0
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    init(multi: any LoopMulti) {
        self.multi = multi
    }

    deinit { buffer.deallocate() }

    /// Open sockets (adopted ones included).
    var isEmpty: Bool { adopted.isEmpty && sockets.isEmpty }

    /// The handshake of `link` ended with the upgrade: its handle stays on the multi handle.
    /// False when libcurl has no socket for it (the transfer then ends as a failure).
    func adopt(_ link: WebSocketLink, handle: EasyHandle) -> Bool {
        let socket = ccurl_active_socket(handle.curl)
        guard socket >= 0 else { return false }
        link.adopted(by: self, connection: WebSocketConnection(handle: handle, socket: socket, now: .now))
        adopted[ObjectIdentifier(link)] = link
        reserveConnections()
        return true
    }

    /// A handshake joined the multi handle (`ended` false) or left it, upgraded or not: the
    /// pool's bound counts its connection from the start, so that the connections kept for the
    /// other transfers do not lose a place to it.
    func handshake(ended: Bool) {
        handshakes += ended ? -1 : 1
        reserveConnections()
    }

    /// Every open socket and handshake holds a connection besides those the pool keeps.
    private func reserveConnections() {
        multi.reserveConnections(forWebSockets: adopted.count + sockets.count + handshakes)
    }

    /// `link` has work for the loop (any thread): the poll wakes.
    func markDirty(_ link: WebSocketLink) {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        guard dirtyIDs.insert(ObjectIdentifier(link)).inserted else { return }
        let wakes = dirty.isEmpty
        dirty.append(link)
        // (Under the lock: the multi handle lives until `closeAll` set `stopped`.)
        if wakes { multi.wake() }
    }

    /// The loop's turn: sockets that were woken, then those whose timers are due.
    /// (A loop without WebSockets pays a lock and two looks: no clock read, no copy.)
    func service() {
        let woken = lock.withLock { () -> [WebSocketLink] in
            guard !dirty.isEmpty else { return [] }
            defer {
                dirty.removeAll(keepingCapacity: true)
                dirtyIDs.removeAll(keepingCapacity: true)
            }
            return dirty
        }
        guard !woken.isEmpty || !sockets.isEmpty else {
            nextDeadline = nil
            return
        }
        let now = ContinuousClock.now
        for link in woken {
            let id = ObjectIdentifier(link)
            if let activated = adopted.removeValue(forKey: id) { sockets[id] = activated }
            if sockets[id] != nil { serve(link, now: now) }
        }
        var next: ContinuousClock.Instant?
        for link in Array(sockets.values) {
            guard var deadline = link.connection?.nextDeadline(link.settings) else { continue }
            if deadline <= now {
                serve(link, now: now)
                guard let later = link.connection?.nextDeadline(link.settings) else { continue }
                deadline = later
            }
            next = next.map { min($0, deadline) } ?? deadline
        }
        nextDeadline = next
    }

    /// Waits in the multi handle's poll, with every open socket that wants to read or write,
    /// for at most `milliseconds`; then serves the sockets that are ready.
    func poll(milliseconds: Int32) {
        guard !sockets.isEmpty else {
            // (No socket of its own: the plain poll, with no clock read after it; no link of
            // an earlier poll stays held.)
            if !polled.isEmpty { polled.removeAll() }
            return multi.poll(UnsafeMutableBufferPointer(start: nil, count: 0), milliseconds: milliseconds)
        }
        descriptors.removeAll(keepingCapacity: true)
        polled.removeAll(keepingCapacity: true)
        for link in sockets.values {
            guard let connection = link.connection, !connection.ended else { continue }
            var events: Int16 = 0
            if link.wantsMessages { events |= Int16(CURL_WAIT_POLLIN) }
            if connection.blockedOnSend { events |= Int16(CURL_WAIT_POLLOUT) }
            guard events != 0 else { continue }
            descriptors.append(curl_waitfd(fd: connection.socket, events: events, revents: 0))
            polled.append(link)
        }
        descriptors.withUnsafeMutableBufferPointer { multi.poll($0, milliseconds: milliseconds) }
        let now = ContinuousClock.now
        for (index, link) in polled.enumerated() where descriptors[index].revents != 0 {
            serve(link, now: now)
        }
    }

    /// The loop stops: every socket ends now.
    func closeAll() {
        lock.withLock { stopped = true }
        for link in Array(adopted.values) + Array(sockets.values) {
            if let connection = link.connection {
                link.finish(connection, .failed(HTTPTransportError(
                    code: .cancelled, message: "The session's transfer loop stopped.", url: link.url)), peerCode: .abnormalClosure)
            }
            release(link)
        }
        adopted = [:]
        sockets = [:]
        // (The links refer to this hub: none may stay here, or neither would ever go.)
        polled = []
        lock.withLock {
            dirty = []
            dirtyIDs = []
        }
    }

    private func serve(_ link: WebSocketLink, now: ContinuousClock.Instant) {
        guard !link.service(now: now, buffer: buffer) else { return }
        sockets[ObjectIdentifier(link)] = nil
        release(link)
    }

    /// The handle leaves the multi handle and is closed, with its connection.
    private func release(_ link: WebSocketLink) {
        guard let connection = link.connection else { return }
        multi.remove(connection.handle.curl)
        link.connection = nil
        reserveConnections()
    }
}
