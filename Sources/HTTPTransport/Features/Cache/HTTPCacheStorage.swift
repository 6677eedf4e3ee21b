import Foundation

/// Where an `HTTPCache` made with `HTTPCache(storage:maxBytes:)` keeps its entries, so that a
/// cache can live elsewhere than in memory or a directory (`RedisCacheStorage`, module
/// `HTTPTransportRedis`, shares one between processes).
///
/// The cache keeps every rule: it decides what is stored (never a `no-store` or a shared-cache
/// only response), digests URLs and credentials with the storage's `salt`, and encodes each entry
/// with its URL's name, credential digest and a checksum, so that an entry read back is served
/// only to the requests it was stored for; a damaged one reads as a miss. The storage only
/// keeps opaque bytes by URL name and variant name.
///
/// Every method may be called from any thread at once. A storage that cannot answer (a server
/// that is down) answers as if it held nothing and drops what it is given: a cache is an
/// optimisation, never a reason for a send to fail.
public protocol HTTPCacheStorage: Sendable {
    /// Random bytes, the same for every cache and process sharing the storage, with which the
    /// cache digests URLs and credential values (at least 16).
    var salt: [UInt8] { get }
    /// The entries stored for the URL named `urlName`, by variant name.
    func entries(urlName: String) -> [String: Data]
    /// Stores `entry` as `variant` of `urlName`, replacing the entry of that name. It is of no
    /// use after `lifetime` seconds (its freshness plus a margin for revalidation) and may be
    /// dropped then.
    func store(_ entry: Data, urlName: String, variant: String, lifetime: TimeInterval)
    /// Notes that the entry was served (for least-recently-used eviction, where there is one).
    func recordUse(urlName: String, variant: String)
    /// Removes one entry.
    func remove(urlName: String, variant: String)
    /// Removes every entry of `urlName`.
    func removeAll(urlName: String)
    /// Removes every entry.
    func removeAll()
}

/// An `HTTPCacheStorage` as the cache's own storage: responses encoded and checked with
/// `StoredResponseCoding`, URLs named by their salted digest (a URL's query may hold a token),
/// entries larger than `maxBytes` not stored, and each given its freshness plus `margin` to live.
struct CustomCacheStorage: CacheStorage {
    let storage: any HTTPCacheStorage
    let maxBytes: Int64
    let salt: [UInt8]
    let clock: @Sendable () -> Double
    /// How long a stale entry stays for revalidation (and `stale-while-revalidate`) after its freshness.
    static let margin: TimeInterval = 3_600

    init(_ storage: any HTTPCacheStorage, maxBytes: Int64, clock: @escaping @Sendable () -> Double) {
        self.storage = storage
        self.maxBytes = maxBytes
        self.clock = clock
        salt = storage.salt
    }

    func responses(for key: CacheKey) -> [StoredResponse] {
        let name = urlName(key.url)
        return storage.entries(urlName: name).compactMap { variant, entry in
            guard let response = StoredResponseCoding.decode(entry, url: key.url, urlName: name) else {
                storage.remove(urlName: name, variant: variant)
                return nil
            }
            return response.credentialDigest == key.credentialDigest ? response : nil
        }
    }

    func store(_ response: StoredResponse) {
        let name = urlName(response.url)
        let entry = StoredResponseCoding.encode(response, urlName: name)
        guard Int64(entry.count) <= maxBytes else { return }
        let freshness = response.freshness(now: clock())
        let fresh = max(0, freshness.lifetime - freshness.currentAge)
        let window = Double(response.directives.staleWhileRevalidate ?? 0)
        storage.store(entry, urlName: name, variant: response.variantName, lifetime: fresh + window + Self.margin)
    }

    func recordUse(of response: StoredResponse) {
        storage.recordUse(urlName: urlName(response.url), variant: response.variantName)
    }

    func remove(_ response: StoredResponse) {
        storage.remove(urlName: urlName(response.url), variant: response.variantName)
    }

    func removeAll(url: String) { storage.removeAll(urlName: urlName(url)) }

    func removeAll() { storage.removeAll() }

    private func urlName(_ url: String) -> String { SHA256Digest.hex(of: salt + Array(url.utf8)) }
}
