import Foundation
import HTTPTransport
import Logging

/// An `HTTPCacheStorage` in Redis, so that the transports of many processes share one cache:
/// `HTTPCache(storage: try RedisCacheStorage(url: redisURL))`.
///
/// The cache's rules are the same as in memory or a directory (entries keyed by URL, credentials
/// and connection identity, `no-store` and `private`-for-shared-caches rules, sizes), and each
/// entry expires in Redis when its freshness plus a margin for revalidation is over, so the
/// store does not grow without bound (set Redis's `maxmemory` with an LRU policy to cap it).
/// When Redis is unreachable or slow, the cache reads nothing and stores nothing until it
/// answers again (a warning is logged once per outage); sends are never failed by it.
///
/// Keys: `<keyPrefix>:salt`, `<keyPrefix>:<url digest>` (the set of a URL's variants) and
/// `<keyPrefix>:<url digest>:<variant>` (one entry).
public final class RedisCacheStorage: HTTPCacheStorage {
    /// What every key of the storage starts with.
    public let keyPrefix: String
    let connections: RedisConnections
    /// Read (or set) once, the first time the cache asks.
    private let sharedSalt = SaltOnce()

    /// A storage on the Redis server at `url` (`redis://[user:password@]host:port[/db]` or
    /// `unix:///path/to/redis.sock`; another form fails with `.invalidURL`). Round trips take
    /// at most half a second each; a read takes at most 64 variants of a URL and 64 MiB (a larger
    /// entry is not stored), whatever else is in Redis.
    public convenience init(url: URL, keyPrefix: String = "httptransport-cache") throws(HTTPTransportError) {
        try self.init(url: url, keyPrefix: keyPrefix, maxReadBytes: 64 << 20)
    }

    /// The most bytes of entries one read takes (an entry larger is neither stored nor read), so
    /// that whatever is in Redis, a read allocates a bounded amount.
    let maxReadBytes: Int
    /// The most variants of a URL one read takes.
    static let maxVariants = 64

    init(url: URL, keyPrefix: String, maxReadBytes: Int) throws(HTTPTransportError) {
        self.maxReadBytes = maxReadBytes
        let endpoint = try RedisEndpoint(url: url)
        self.keyPrefix = keyPrefix
        let logger = Logger(label: "HTTPTransport.Cache")
        connections = RedisConnections(endpoint: endpoint, timeout: 0.5) { failure in
            logger.warning("The Redis cache storage at \(endpoint) does not answer (\(failure)); the cache stores and serves nothing until it does.")
        }
    }

    /// The salt every process using the storage shares (kept in Redis); one of this process's
    /// own when Redis cannot be reached the first time (its entries are then its own).
    public var salt: [UInt8] {
        sharedSalt.value {
            let fresh = (0..<32).map { _ in UInt8.random(in: 0...255) }
            let reply = RedisScripts.salt.run(on: connections, keys: ["\(keyPrefix):salt"], arguments: [Self.hex(fresh)])
            guard let text = reply?.text, let salt = Self.bytes(hex: text), salt.count >= 16 else { return fresh }
            return salt
        }
    }

    public func entries(urlName: String) -> [String: Data] {
        guard case .array(let values)? = RedisScripts.cacheEntries.run(
            on: connections, keys: [key(urlName)], arguments: [String(Self.maxVariants), String(maxReadBytes)])
        else { return [:] }
        var entries: [String: Data] = [:]
        for index in stride(from: 0, to: values.count - 1, by: 2) {
            if let variant = values[index].text, case .bytes(let bytes) = values[index + 1] { entries[variant] = Data(bytes) }
        }
        return entries
    }

    public func store(_ entry: Data, urlName: String, variant: String, lifetime: TimeInterval) {
        guard entry.count <= maxReadBytes else { return }
        let milliseconds = Int((min(max(lifetime, 1), 365 * 86_400) * 1000).rounded(.up))
        _ = connections.withConnection { connection throws(RedisFailure) in
            try RedisScripts.cacheStore.run(on: connection, keys: [key(urlName)],
                                            arguments: [Array(variant.utf8), [UInt8](entry), Array(String(milliseconds).utf8)])
        }
    }

    /// Entries expire by their lifetime; a use does not extend it.
    public func recordUse(urlName: String, variant: String) {}

    public func remove(urlName: String, variant: String) {
        _ = connections.run([Array("DEL".utf8), Array("\(key(urlName)):\(variant)".utf8)])
        _ = connections.run([Array("SREM".utf8), Array(key(urlName).utf8), Array(variant.utf8)])
    }

    public func removeAll(urlName: String) {
        _ = RedisScripts.cacheRemoveAll.run(on: connections, keys: [key(urlName)], arguments: [])
    }

    public func removeAll() {
        // The prefix matched literally: `*`, `?`, `[` or a backslash in it must not reach other prefixes' keys.
        let pattern = keyPrefix.reduce(into: "") { pattern, character in
            if "*?[]\\".contains(character) { pattern.append("\\") }
            pattern.append(character)
        } + ":*"
        var cursor = "0"
        for _ in 0..<100_000 {
            guard case .array(let page)? = connections.run(["SCAN", cursor, "MATCH", pattern, "COUNT", "1000"].map { Array($0.utf8) }),
                  page.count == 2, let next = page[0].text, case .array(let keys) = page[1] else { return }
            let doomed = keys.compactMap(\.text).filter { $0.hasPrefix("\(keyPrefix):") && $0 != "\(keyPrefix):salt" }
            if !doomed.isEmpty { _ = connections.run([Array("DEL".utf8)] + doomed.map { Array($0.utf8) }) }
            cursor = next
            if cursor == "0" { return }
        }
    }

    private func key(_ urlName: String) -> String { "\(keyPrefix):\(urlName)" }

    private static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        return stride(from: 0, to: digits.count, by: 2).map { index -> UInt8? in
            UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16)
        }.reduce(into: [UInt8]?([])) { result, byte in
            guard let byte else { result = nil; return }
            result?.append(byte)
        }
    }
}

/// A value computed once, the first time it is asked for, under a lock.
final class SaltOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var salt: [UInt8]?

    func value(_ make: () -> [UInt8]) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        if let salt { return salt }
        let made = make()
        salt = made
        return made
    }
}
