import Foundation

/// How old a stored response is and how long it stays fresh, by RFC 9111 §4.2. Times are
/// seconds since 1970 (wall clock: `Date` and `Expires` are wall-clock times too).
struct CacheFreshness: Sendable, Equatable {
    /// `current_age` (§4.2.3).
    let currentAge: Double
    /// `freshness_lifetime` (§4.2.1).
    let lifetime: Double

    /// `true` while the lifetime exceeds the age.
    var isFresh: Bool { lifetime > currentAge }
    /// Seconds past the lifetime (negative while fresh).
    var staleness: Double { currentAge - lifetime }

    /// Status codes whose responses may be given a heuristic lifetime (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]
    /// The share of the time since `Last-Modified` used as a heuristic lifetime (§4.2.2's "typical" 10%).
    static let heuristicFraction = 0.1
    /// The longest heuristic lifetime: a day (RFC 7234 asked for a warning beyond it).
    static let heuristicCap: Double = 86_400

    init(currentAge: Double, lifetime: Double) {
        self.currentAge = currentAge
        self.lifetime = lifetime
    }

    /// The figures for a response received between `requestTime` and `responseTime`, at `now`.
    init(status: Int, headers: HTTPHeaders, directives: CacheDirectives,
         requestTime: Double, responseTime: Double, now: Double) {
        let date = Self.dateValue(headers, responseTime: responseTime)
        lifetime = Self.lifetime(status: status, headers: headers, directives: directives, date: date)
        currentAge = Self.currentAge(ageValue: Self.ageValue(headers), date: date, requestTime: requestTime,
                                     responseTime: responseTime, now: now)
    }

    /// `date_value`: the `Date` field, or the time the response arrived when it has none or an
    /// unreadable one.
    static func dateValue(_ headers: HTTPHeaders, responseTime: Double) -> Double {
        headers.first("Date").flatMap(httpDate) ?? responseTime
    }

    /// `freshness_lifetime` (§4.2.1): `max-age`, else `Expires` − `Date`, else the heuristic of
    /// §4.2.2, else 0. An `Expires` that is not exactly one HTTP-date (`0`, another zone, a
    /// two-digit year, two values) means already expired (§5.3), so it is read strictly.
    static func lifetime(status: Int, headers: HTTPHeaders, directives: CacheDirectives, date: Double) -> Double {
        if let maxAge = directives.maxAge { return Double(maxAge) }
        let expires = headers.values("Expires")
        if let first = expires.first {
            guard expires.count == 1, let expiry = HTTPDate.parse(first, now: date) else { return 0 }
            return max(0, expiry - date)
        }
        return heuristicLifetime(status: status, headers: headers, directives: directives, date: date)
    }

    /// A tenth of the time between `Last-Modified` and `Date`, at most a day; only for status
    /// codes that are cacheable by default or a response marked `public` (§4.2.2). URLs with a
    /// query are not excluded: RFC 9111 dropped RFC 2616's exclusion.
    static func heuristicLifetime(status: Int, headers: HTTPHeaders, directives: CacheDirectives, date: Double) -> Double {
        guard heuristicallyCacheable.contains(status) || directives.isPublic,
              let modified = headers.first("Last-Modified").flatMap(httpDate), modified < date
        else { return 0 }
        return min((date - modified) * heuristicFraction, heuristicCap)
    }

    /// `current_age` (§4.2.3): the larger of the apparent age and the `Age` field plus the
    /// response delay, plus the time spent in this cache.
    static func currentAge(ageValue: Double, date: Double, requestTime: Double, responseTime: Double,
                           now: Double) -> Double {
        let apparentAge = max(0, responseTime - date)
        let responseDelay = max(0, responseTime - requestTime)
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        let residentTime = max(0, now - responseTime)
        return correctedInitialAge + residentTime
    }

    /// `age_value`: the `Age` field in seconds, 0 when absent or unreadable. A list
    /// (`Age: 7200, 0`, or two field lines) counts by its first member (§5.1).
    static func ageValue(_ headers: HTTPHeaders) -> Double {
        guard let line = headers.first("Age"),
              let member = line.split(separator: ",", omittingEmptySubsequences: false).first
        else { return 0 }
        return CacheDirectives.deltaSeconds(String(member.trimmingHeaderWhitespace())).map(Double.init) ?? 0
    }

    /// A `Date` or `Last-Modified` value as seconds since 1970. Recipients should be robust
    /// here (RFC 9110 §5.6.7), so the lenient cookie-date parser reads them: it picks the time,
    /// day, month and year tokens out of any of the three forms and rejects what has none.
    /// `Expires` is read strictly instead (`HTTPDate`).
    static func httpDate(_ text: String) -> Double? {
        CookieDateParser.parse(text)?.timeIntervalSince1970
    }
}
