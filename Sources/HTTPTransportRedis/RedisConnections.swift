import Foundation
import Logging

/// The connections of one store to its Redis server, for any number of threads: a small pool
/// of hiredis connections under a lock (each used by one thread at a time), and the store's
/// view of whether Redis is out.
///
/// A round trip that fails (no connection, a refused login, a time-out) drops its connection
/// and marks Redis out for `retryInterval`: meanwhile every round trip fails at once without
/// touching the network, so a dead server costs the senders nothing; after it, the next round
/// trip tries to connect again.
final class RedisConnections: @unchecked Sendable {
    let endpoint: RedisEndpoint
    let timeout: TimeInterval
    /// How long after a failure the next connection attempt waits.
    let retryInterval: TimeInterval
    private let lock = NSLock()
    private var idle: [RedisConnection] = []
    private var outUntil: TimeInterval = 0
    private var lastFailure: String?
    /// Whether the last round trip failed (so that an outage is reported once).
    private var isOut = false
    /// Told once per outage why Redis is out (nil: the caller reports outages itself).
    private let onOutage: (@Sendable (String) -> Void)?
    /// Idle connections kept (more are closed after use): as many as the threads that commonly
    /// send at once (a session's executor has 2 per core), so that none connects per decision.
    private static let maxIdle = 32

    /// How the server's host name becomes an address (within the time-out).
    private let resolver: RedisResolver

    init(endpoint: RedisEndpoint, timeout: TimeInterval, retryInterval: TimeInterval = 1,
         resolver: RedisResolver = RedisResolver(), onOutage: (@Sendable (String) -> Void)? = nil) {
        self.endpoint = endpoint
        self.resolver = resolver
        self.timeout = timeout
        self.retryInterval = retryInterval
        self.onOutage = onOutage
    }

    /// Why the last round trip failed, or nil.
    var failure: String? {
        lock.lock()
        defer { lock.unlock() }
        return lastFailure
    }

    /// One command's reply, or nil when Redis is out or the round trip failed.
    func run(_ arguments: [[UInt8]]) -> RedisReply? {
        withConnection { connection throws(RedisFailure) in try connection.run(arguments) }
    }

    /// Runs `body` on a connection (a pooled one, else a new one); nil when Redis is out, the
    /// connection failed or `body` threw (the connection is then closed).
    /// Everything `body` does, a new connection's login included, is over within `timeout`.
    func withConnection<Result>(_ body: (RedisConnection) throws(RedisFailure) -> Result) -> Result? {
        guard let connection = takeConnection(deadline: Self.now() + timeout) else { return nil }
        do {
            let result = try body(connection)
            giveBack(connection)
            return result
        } catch {
            markOut(error)
            return nil
        }
    }

    private func takeConnection(deadline: TimeInterval) -> RedisConnection? {
        lock.lock()
        if Self.now() < outUntil {
            lock.unlock()
            return nil
        }
        if let connection = idle.popLast() {
            lock.unlock()
            connection.deadline = deadline
            return connection
        }
        lock.unlock()
        do {
            return try RedisConnection(endpoint, deadline: deadline, resolver: resolver)
        } catch {
            markOut(error)
            return nil
        }
    }

    private func giveBack(_ connection: RedisConnection) {
        lock.lock()
        defer { lock.unlock() }
        lastFailure = nil
        isOut = false
        if idle.count < Self.maxIdle { idle.append(connection) }
    }

    private func markOut(_ failure: RedisFailure) {
        lock.lock()
        let dropped = idle
        idle = []
        outUntil = Self.now() + retryInterval
        lastFailure = failure.description
        let starts = !isOut
        isOut = true
        lock.unlock()
        // Other pooled connections may be as dead as this one; closed outside the lock.
        _ = dropped
        if starts { onOutage?(failure.description) }
    }

    private static func now() -> TimeInterval { RedisConnection.now() }
}
