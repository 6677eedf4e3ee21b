import Foundation

/// Endpoints parsed and checked recently, so that sending the same endpoint again skips
/// Foundation's URL parser (a few thousand instructions a send). Bounded: when full, it starts
/// over. Only endpoints that passed every check are kept.
enum ParsedEndpoints {
    /// The most endpoints kept at once.
    static let capacity = 256

    private static let cache = Locked<[String: URL]>([:])

    /// The URL an endpoint was parsed into, if it is still kept.
    static func url(for endpoint: String) -> URL? {
        cache.withLock { $0[endpoint] }
    }

    /// Keeps a checked endpoint's URL.
    static func remember(_ url: URL, for endpoint: String) {
        cache.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[endpoint] = url
        }
    }
}
