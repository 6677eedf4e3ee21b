import Foundation

/// What an `HTTPCache` makes of a request before the network (`HTTPCache.plan(_:for:)`): the
/// answer, or the one request to send and what to do with its answer. Neither step performs
/// the network exchange, so the synchronous and the asynchronous pipeline drive the same rules
/// and differ only in how they wait for the network.
enum CacheExchangePlan: Sendable {
    /// The cache answered without the network: a hit (also a stale one whose background
    /// revalidation has been started), or a `504` for an unsatisfiable `only-if-cached`.
    case answered(RawResponse)
    /// Send this request (the original, or the conditional request revalidating a stored
    /// response), then hand its answer to the completion.
    case network(RawRequest, CacheCompletion)
}

/// What the cache does with the network's answer to a planned request: stores it, merges a `304`
/// into the stored response, invalidates what an unsafe method changed, sets `cacheStatus`.
struct CacheCompletion: Sendable {
    /// Why the request went to the network, and what the cache needs to finish the exchange.
    enum Step: Sendable {
        /// The cache refused its directory: the answer passes through as `.disabled`.
        case disabled
        /// A request the cache neither answers nor stores: a `.miss`; a successful unsafe
        /// method removes the responses stored for the URLs it changed.
        case uncached(RawRequest)
        /// A fetch whose answer is stored when the rules allow, superseding `replacing`.
        case store(HTTPCache.Exchange, replacing: StoredResponse?, requestTime: Double)
        /// A conditional request revalidating `stored`.
        case revalidation(StoredResponse, conditional: RawRequest, HTTPCache.Exchange, requestTime: Double)
    }

    let cache: HTTPCache
    let step: Step

    /// The plan once the network answered `response`: the final response, or (only after a `304`
    /// about another representation than the stored one) one plain fetch more.
    func finish(_ response: RawResponse) -> CacheExchangePlan {
        cache.complete(step, with: response)
    }
}
