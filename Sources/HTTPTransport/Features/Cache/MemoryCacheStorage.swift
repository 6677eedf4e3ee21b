import Foundation

/// Where an `HTTPCache` keeps its responses: in memory, or in a directory.
protocol CacheStorage: Sendable {
    /// The salt of the digests of request fields (`FieldDigester`): random per cache, and kept
    /// in a cache directory so that every instance and process using it agrees.
    var salt: [UInt8] { get }
    /// Every response stored for the key's URL and credentials (one per `Vary` selection).
    func responses(for key: CacheKey) -> [StoredResponse]
    /// Stores `response`, replacing the one with the same URL and variant name.
    func store(_ response: StoredResponse)
    /// Notes that `response` was used (least-recently-used eviction).
    func recordUse(of response: StoredResponse)
    /// Removes `response` (the same URL and variant name).
    func remove(_ response: StoredResponse)
    /// Removes every response stored for `url`, whatever its credentials and variant.
    func removeAll(url: String)
    /// Removes everything.
    func removeAll()
}

/// Responses in memory, at most `maxBytes` of them (by `StoredResponse.cost`), the least
/// recently used evicted first. One lock; nothing but dictionary work is done under it.
final class MemoryCacheStorage: CacheStorage {
    private struct VariantID: Hashable, Sendable {
        let url: String
        let name: String
    }

    private struct State: Sendable {
        var byURL: [String: [String: StoredResponse]] = [:]
        var recency = RecencyList<VariantID>()
        var bytes = 0
    }

    private let maxBytes: Int
    private let state = Locked(State())
    let salt = FieldDigester.randomSalt()

    init(maxBytes: Int64) { self.maxBytes = Int(clamping: maxBytes) }

    func responses(for key: CacheKey) -> [StoredResponse] {
        state.withLock { state in
            guard let variants = state.byURL[key.url] else { return [] }
            return variants.values.filter { $0.credentialDigest == key.credentialDigest }
        }
    }

    func store(_ response: StoredResponse) {
        guard response.cost <= maxBytes else { return }
        let id = VariantID(url: response.url, name: response.variantName)
        state.withLock { state in
            if let old = state.byURL[id.url, default: [:]].updateValue(response, forKey: id.name) {
                state.bytes -= old.cost
            }
            state.bytes += response.cost
            state.recency.touch(id)
            while state.bytes > maxBytes, let oldest = state.recency.leastRecent {
                Self.remove(oldest, from: &state)
            }
        }
    }

    func recordUse(of response: StoredResponse) {
        let id = VariantID(url: response.url, name: response.variantName)
        state.withLock { state in
            if state.byURL[id.url]?[id.name] != nil { state.recency.touch(id) }
        }
    }

    func remove(_ response: StoredResponse) {
        state.withLock { state in Self.remove(VariantID(url: response.url, name: response.variantName), from: &state) }
    }

    func removeAll(url: String) {
        state.withLock { state in
            for name in state.byURL[url]?.keys.map({ $0 }) ?? [] {
                Self.remove(VariantID(url: url, name: name), from: &state)
            }
        }
    }

    func removeAll() {
        state.withLock { $0 = State() }
    }

    private static func remove(_ id: VariantID, from state: inout State) {
        state.recency.remove(id)
        guard let removed = state.byURL[id.url]?.removeValue(forKey: id.name) else { return }
        state.bytes -= removed.cost
        if state.byURL[id.url]?.isEmpty == true { state.byURL[id.url] = nil }
    }
}

/// Keys in order of use, for least-recently-used eviction: a doubly linked list threaded
/// through an array (slots of removed keys are reused), so touching and removing are O(1).
struct RecencyList<Key: Hashable & Sendable>: Sendable {
    private struct Node: Sendable {
        var key: Key
        var older: Int?
        var newer: Int?
    }

    private var nodes: [Node] = []
    private var free: [Int] = []
    private var slots: [Key: Int] = [:]
    private var oldest: Int?
    private var newest: Int?

    /// The key used longest ago.
    var leastRecent: Key? { oldest.map { nodes[$0].key } }

    /// The number of keys.
    var count: Int { slots.count }

    /// Makes `key` the most recently used, adding it when new.
    mutating func touch(_ key: Key) {
        if let slot = slots[key] {
            unlink(slot)
            link(slot)
            return
        }
        let node = Node(key: key, older: nil, newer: nil)
        let slot: Int
        if let reused = free.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        slots[key] = slot
        link(slot)
    }

    /// Forgets `key`.
    mutating func remove(_ key: Key) {
        guard let slot = slots.removeValue(forKey: key) else { return }
        unlink(slot)
        free.append(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let node = nodes[slot]
        if let older = node.older { nodes[older].newer = node.newer } else { oldest = node.newer }
        if let newer = node.newer { nodes[newer].older = node.older } else { newest = node.older }
        nodes[slot].older = nil
        nodes[slot].newer = nil
    }

    private mutating func link(_ slot: Int) {
        nodes[slot].older = newest
        nodes[slot].newer = nil
        if let newest { nodes[newest].newer = slot } else { oldest = slot }
        newest = slot
    }
}
