import Foundation

/// A session's recently parsed endpoints, so that sending to the same endpoint again skips
/// Foundation's URL parser, a sizeable part of a small keep-alive GET's own work (see the
/// Performance article). One per `Session`, so nothing is shared between unrelated sessions;
/// bounded: when full, it starts over. Only endpoints that passed every check are kept.
final class ParsedEndpoints: Sendable {
    /// The most endpoints kept at once.
    static let capacity = 256

    private struct Entries {
        var byEndpoint: [String: Parsed] = [:]
        /// The last endpoint looked up and its URL (nil before any): a script or a worker sending
        /// to one endpoint again and again finds it by one string comparison, without hashing.
        var lastEndpoint = ""
        var last: Parsed?
    }

    /// An endpoint's URL and the URL's text (`absoluteString`, which the engine hands libcurl),
    /// made once.
    struct Parsed {
        let url: URL
        let text: String
    }

    private let entries = Locked(Entries())

    /// The URL an endpoint was parsed into, if it is still kept.
    func url(for endpoint: String) -> Parsed? {
        entries.withLock { entries in
            if let last = entries.last, entries.lastEndpoint == endpoint { return last }
            guard let parsed = entries.byEndpoint[endpoint] else { return nil }
            entries.lastEndpoint = endpoint
            entries.last = parsed
            return parsed
        }
    }

    /// Keeps a checked endpoint's URL.
    func remember(_ parsed: Parsed, for endpoint: String) {
        entries.withLock { entries in
            if entries.byEndpoint.count >= Self.capacity { entries.byEndpoint.removeAll(keepingCapacity: true) }
            entries.byEndpoint[endpoint] = parsed
            entries.lastEndpoint = endpoint
            entries.last = parsed
        }
    }
}
