/// Where a response came from, as far as the session's `HTTPCache` is concerned
/// (`TransferMetrics.cacheStatus`).
public enum HTTPCacheStatus: Sendable, Hashable {
    /// The session has no cache, or its cache refused its directory (see `HTTPCache.init`).
    case disabled
    /// The cache had nothing usable: the request went to the network (its answer stored or not).
    case miss
    /// Served from the cache without the network.
    case hit
    /// A stored response was revalidated: the server answered `304` and the stored body was
    /// served (with the stored status, e.g. 200) and updated headers.
    case revalidated
}
