import Foundation

/// Endpoints parsed and checked recently, so that sending the same endpoint again skips
/// Foundation's URL parser (a few thousand instructions a send). Bounded: when full, it starts
/// over. Only endpoints that passed every check are kept.
enum ParsedEndpoints {
    /// The most endpoints kept at once.
    static let capacity = 256

    private struct Entries {
        var byEndpoint: [String: URL] = [:]
        /// The last endpoint looked up: a script or a worker sending to one endpoint again and
        /// again finds it by one string comparison, without hashing.
        var last: (endpoint: String, url: URL)?
    }

    private static let cache = Locked(Entries())

    /// The URL an endpoint was parsed into, if it is still kept.
    static func url(for endpoint: String) -> URL? {
        cache.withLock { entries in
            if let last = entries.last, last.endpoint == endpoint { return last.url }
            guard let url = entries.byEndpoint[endpoint] else { return nil }
            entries.last = (endpoint, url)
            return url
        }
    }

    /// Keeps a checked endpoint's URL.
    static func remember(_ url: URL, for endpoint: String) {
        cache.withLock { entries in
            if entries.byEndpoint.count >= capacity { entries.byEndpoint.removeAll(keepingCapacity: true) }
            entries.byEndpoint[endpoint] = url
            entries.last = (endpoint, url)
        }
    }
}
