import Foundation

/// A Lua script run on the Redis server: one atomic round trip (`EVALSHA`, the script's digest,
/// loaded with `SCRIPT LOAD` the first time; `EVAL` with the source when the server forgot it,
/// after a restart or `SCRIPT FLUSH`).
final class RedisScript: @unchecked Sendable {
    let source: String
    private let lock = NSLock()
    private var digest: String?

    init(_ source: String) { self.source = source }

    /// The script's reply for `keys` and `arguments`, or nil when Redis did not answer.
    func run(on connections: RedisConnections, keys: [String], arguments: [String]) -> RedisReply? {
        connections.withConnection { connection throws(RedisFailure) in
            try run(on: connection, keys: keys, arguments: arguments.map { Array($0.utf8) })
        }
    }

    /// The same on one connection, with arguments as bytes.
    func run(on connection: RedisConnection, keys: [String], arguments: [[UInt8]]) throws(RedisFailure) -> RedisReply {
        let tail = [Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) } + arguments
        let digest = try knownDigest(connection)
        var reply = try connection.run([Array("EVALSHA".utf8), Array(digest.utf8)] + tail)
        if case .error(let message) = reply, message.hasPrefix("NOSCRIPT") {
            reply = try connection.run([Array("EVAL".utf8), Array(source.utf8)] + tail)
        }
        // An error reply (NOAUTH from a server that wants a password, READONLY from a replica,
        // OOM) fails like no reply: Redis is out for this store until it answers properly.
        if case .error(let message) = reply {
            throw RedisFailure("Redis refused the script: \(message.prefix(120))")
        }
        return reply
    }

    private func knownDigest(_ connection: RedisConnection) throws(RedisFailure) -> String {
        lock.lock()
        let known = digest
        lock.unlock()
        if let known { return known }
        guard let loaded = try connection.run([Array("SCRIPT".utf8), Array("LOAD".utf8), Array(source.utf8)]).text else {
            throw RedisFailure("the server did not load a script")
        }
        lock.lock()
        digest = loaded
        lock.unlock()
        return loaded
    }
}
