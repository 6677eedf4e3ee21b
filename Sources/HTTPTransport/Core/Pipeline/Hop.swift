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
    /// The first request's URL: its origin is the one credentials belong to.
    let firstURL: URL
    /// When the exchange must be over (set once the first hop's time-out is known), as a time
    /// on `Hop.clock`.
    var deadline: Duration?

    /// The time on the system's monotonic clock (`CLOCK_MONOTONIC`, which the engine's
    /// time-outs also run on), read without going through `ContinuousClock`'s instants.
    static var clock: Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Duration(secondsComponent: Int64(time.tv_sec), attosecondsComponent: Int64(time.tv_nsec) * 1_000_000_000)
    }

    /// The first hop of an exchange.
    init(first request: consuming RawRequest) {
        firstURL = request.url
        self.request = request
        redirects = 0
    }

    private init(request: RawRequest, after previous: Hop) {
        self.request = request
        redirects = previous.redirects + 1
        firstURL = previous.firstURL
        deadline = previous.deadline
    }

    /// How long an exchange with a time-out of `seconds` may take: whole milliseconds rounded up,
    /// at least 1 ms (a time-out of zero, less or NaN is all but spent, never "no limit"), at most
    /// about 30 years (an infinite time-out must not overflow the clock). The engine gives the
    /// first hop the same limit, so the exchange's deadline falls when that hop's own would.
    static func timeLimit(_ seconds: TimeInterval) -> Duration {
        guard seconds.isFinite else { return seconds > 0 ? .seconds(1_000_000_000) : .milliseconds(1) }
        return .milliseconds(Int((min(max(seconds, 0.001), 1_000_000_000) * 1000).rounded(.up)))
    }

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
        guard redirects > 0, let deadline else { return nil }
        let left = deadline - Self.clock
        let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
        guard seconds > 0 else {
            throw HTTPTransportError(
                code: .timeout,
                message: "The request timed out after \(redirects) redirect(s): its time-out covers the whole exchange, every hop included.",
                url: request.url.absoluteString)
        }
        return seconds
    }
}
