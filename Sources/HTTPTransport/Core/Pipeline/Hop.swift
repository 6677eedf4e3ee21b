import Foundation

/// One request of an exchange: the first one, or the next one after a redirect. Knows the
/// rules that depend on where a hop goes (DESIGN §1b, "Redirect hops"):
/// - a hop to another origin than the first request's sends no credential header
///   (`Session.Configuration.credentialHeaders`), whoever added it, and not the `Cookie`
///   header set on the request itself (cookies an interceptor adds for the hop's own URL go);
/// - the request's `timeout` is one deadline for the whole exchange: each hop gets what is left.
struct Hop {
    /// The hop's request, before its interceptors run.
    var request: RawRequest
    /// Redirects followed before this hop.
    let redirects: Int
    /// The first request's URL, on a redirect hop (the first hop's is its request's): its origin
    /// is the one credentials belong to.
    private let firstHopURL: URL?
    /// When the exchange started, in microseconds on `Hop.clock` (set by the first hop).
    var started: Int64 = 0
    /// The first hop's time-out as its interceptors left it: with `started`, the exchange's
    /// deadline, which only a redirect hop needs.
    var firstTimeout: TimeInterval = 0

    /// Microseconds on the system's monotonic clock (`CLOCK_MONOTONIC`, which the engine's
    /// time-outs also run on).
    static var clock: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1_000
    }

    /// The first hop of an exchange.
    init(first request: consuming RawRequest) {
        self.request = request
        redirects = 0
        firstHopURL = nil
    }

    private init(request: RawRequest, after previous: Hop) {
        self.request = request
        redirects = previous.redirects + 1
        firstHopURL = previous.firstURL
        started = previous.started
        firstTimeout = previous.firstTimeout
    }

    /// The first request's URL.
    var firstURL: URL { firstHopURL ?? request.url }

    /// How long an exchange with a time-out of `seconds` may take: the engine's limit for the
    /// first hop (`CurlEngine.milliseconds`: whole milliseconds rounded up, at least 1, at most
    /// about 30 years), so the exchange's deadline falls when that hop's own would.
    static func timeLimit(_ seconds: TimeInterval) -> Duration { .milliseconds(CurlEngine.milliseconds(seconds)) }

    /// `timeLimit` in microseconds.
    static func timeLimitMicroseconds(_ seconds: TimeInterval) -> Int64 { Int64(CurlEngine.milliseconds(seconds)) * 1000 }

    /// The hop that follows a redirect to `request`.
    func next(_ request: RawRequest) -> Hop { Hop(request: request, after: self) }

    /// `true` when this hop goes to another origin than the first request.
    var crossesOrigin: Bool { redirects > 0 && !RedirectRule.sameOrigin(firstURL, request.url) }

    /// Readies a redirect hop's request for its interceptors: the time left, and without the
    /// request's own cookies on another origin. (The first hop's request goes as it is.)
    func prepareForInterceptors(_ request: inout RawRequest) throws(HTTPTransportError) {
        guard redirects > 0 else { return }
        if let remaining = try remainingTime() { request.timeout = remaining }
        if crossesOrigin { request.headers.remove("Cookie") }
    }

    /// What a redirect hop may send once its interceptors ran: no credential header on another
    /// origin, and no more time than is left.
    func restrict(_ request: inout RawRequest, credentialHeaders: [String]) throws(HTTPTransportError) {
        guard redirects > 0 else { return }
        if crossesOrigin {
            for name in credentialHeaders { request.headers.remove(name) }
        }
        if let remaining = try remainingTime() { request.timeout = min(request.timeout, remaining) }
    }

    /// Seconds left for a redirect hop (`nil` for the first hop, which has its whole time-out);
    /// a hop with nothing left fails before it starts.
    private func remainingTime() throws(HTTPTransportError) -> TimeInterval? {
        guard redirects > 0 else { return nil }
        let deadline = started + Self.timeLimitMicroseconds(firstTimeout)
        let seconds = Double(deadline - Self.clock) / 1e6
        guard seconds > 0 else {
            throw HTTPTransportError(
                code: .timeout,
                message: "The request timed out after \(redirects) redirect(s): its time-out covers the whole exchange, every hop included.",
                url: request.url.absoluteString)
        }
        return seconds
    }
}
