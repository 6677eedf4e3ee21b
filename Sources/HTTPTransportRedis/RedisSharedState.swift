import Foundation
import HTTPTransport

/// Keeps the host limits' token buckets, `Retry-After` pauses, circuit states and retry-budget
/// counts of every session configured with it in Redis, so that a fleet of processes shares
/// them: five workers with `HostLimits(requestsPerSecond: 10)` send about 10 requests a second
/// together, a circuit one opens is open for all (and one probe goes for the fleet).
///
/// Each decision is one round trip running a Lua script on the server, atomic for every
/// client; keys live under `keyPrefix` and expire once they no longer matter. Redis is never a
/// single point of failure: when it is unreachable, refuses the credentials or takes longer
/// than `timeout` for a round trip, the session decides with its own state (no send fails or
/// waits longer than `timeout` because of the store), a warning is logged once per outage, and
/// sharing resumes when Redis answers again (the store tries again at most once a second).
///
/// ```swift
/// var configuration = Session.Configuration()
/// configuration.hostLimits = HostLimits(requestsPerSecond: 10)
/// configuration.sharedState = try RedisSharedState(url: URL(string: "redis://127.0.0.1:6379")!)
/// ```
public final class RedisSharedState: SharedOriginState, CustomStringConvertible {
    /// What every key of the store starts with.
    public let keyPrefix: String
    /// The longest a round trip may take, in seconds.
    public let timeout: TimeInterval
    let connections: RedisConnections

    /// A store on the Redis server at `url`: `redis://[user:password@]host:port[/db]` or
    /// `unix:///path/to/redis.sock`; a URL of another form fails with `.invalidURL`. Nothing
    /// connects until the first decision.
    public init(url: URL, keyPrefix: String = "httptransport", timeout: TimeInterval = 0.05) throws(HTTPTransportError) {
        let endpoint = try RedisEndpoint(url: url)
        self.keyPrefix = keyPrefix
        self.timeout = timeout.isFinite && timeout > 0 ? timeout : 0.05
        connections = RedisConnections(endpoint: endpoint, timeout: self.timeout)
    }

    /// The server and, while it is out, why (never the credentials).
    public var description: String {
        let failure = connections.failure.map { " (\($0))" } ?? ""
        return "RedisSharedState(\(connections.endpoint), prefix \(keyPrefix))\(failure)"
    }

    public func reserveTurn(origin: String, limits: HostLimits, within seconds: TimeInterval) -> SharedTurn? {
        let rate = limits.requestsPerSecond ?? 0
        guard case .array(let values)? = RedisScripts.reserveTurn.run(
            on: connections, keys: [key("bucket", origin), key("pause", origin)],
            arguments: [Self.number(rate), String(limits.burst), Self.number(seconds)]),
            values.count == 2, let wait = values[0].integer, let paused = values[1].integer else { return nil }
        return SharedTurn(wait: wait < 0 ? nil : Double(wait) / 1e6, pausedFor: Double(paused) / 1e6)
    }

    public func returnToken(origin: String, limits: HostLimits) -> Bool {
        guard let rate = limits.requestsPerSecond else { return true }
        return RedisScripts.returnToken.run(on: connections, keys: [key("bucket", origin)],
                                            arguments: [Self.number(rate), String(limits.burst)])?.integer != nil
    }

    public func pause(origin: String, seconds: TimeInterval) -> Bool {
        let milliseconds = Int((min(max(seconds, 0.001), 86_400) * 1000).rounded(.up))
        return RedisScripts.pause.run(on: connections, keys: [key("pause", origin)], arguments: [String(milliseconds)])?.integer != nil
    }

    public func admit(origin: String, breaker: CircuitBreaker, probeLease: TimeInterval) -> SharedCircuitAdmission? {
        guard case .array(let values)? = RedisScripts.admit.run(
            on: connections, keys: [key("circuit", origin)],
            arguments: [Self.duration(breaker.openDuration), Self.duration(probeLease)]),
            let kind = values.first?.integer else { return nil }
        func date(_ index: Int) -> Date? {
            guard index < values.count, let text = values[index].text, let seconds = Double(text) else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
        switch kind {
        case 0: return .send
        case 1: return .probe
        case 2:
            guard let since = date(1), let until = date(2) else { return nil }
            return .open(since: since, until: until, reason: values.count > 3 ? values[3].text ?? "" : "")
        case 3:
            return date(1).map { .probing(since: $0) }
        default: return nil
        }
    }

    public func record(origin: String, breaker: CircuitBreaker, outcome: SharedCircuitOutcome, probe: Bool) -> Bool {
        let (code, reason) = switch outcome {
        case .success: ("s", "")
        case .failure(let reason): ("f", reason)
        case .neutral: ("n", "")
        }
        return RedisScripts.record.run(
            on: connections, keys: [key("circuit", origin)],
            arguments: [code, probe ? "1" : "0", String(breaker.failureThreshold), Self.duration(breaker.openDuration), reason])?.integer != nil
    }

    public func recordFirstAttempt(budget: RetryBudget) -> Bool {
        RedisScripts.recordFirstAttempt.run(on: connections, keys: [budgetKey], arguments: [String(Self.budgetWindow)])?.integer != nil
    }

    public func takeRetry(budget: RetryBudget) -> SharedRetryVerdict? {
        guard case .array(let values)? = RedisScripts.takeRetry.run(
            on: connections, keys: [budgetKey],
            arguments: [String(Self.budgetWindow), Self.number(budget.ratio), Self.number(budget.minimumPerSecond)]),
            values.count == 3, let allowed = values[0].integer, let retries = values[1].integer, let firsts = values[2].integer
        else { return nil }
        return SharedRetryVerdict(allowed: allowed == 1, retries: retries, firstAttempts: firsts)
    }

    /// The seconds over which a `RetryBudget` counts (its documented 10).
    static let budgetWindow = 10

    private var budgetKey: String { "\(keyPrefix):budget" }

    private func key(_ kind: String, _ origin: String) -> String { "\(keyPrefix):\(kind):\(Self.keyPart(origin))" }

    /// The origin as written when it is short and printable ASCII, else `sha256:` and its digest:
    /// a hostile host (of any length, with spaces, control characters or Unicode) makes a key of
    /// bounded size and plain characters, its own.
    static func keyPart(_ origin: String) -> String {
        let bytes = Array(origin.utf8)
        if bytes.count <= 200, bytes.allSatisfy({ (0x21...0x7e).contains($0) }), !origin.hasPrefix("sha256:") { return origin }
        return "sha256:" + SHA256Digest.hex(of: bytes)
    }

    /// A number as Lua's `tonumber` reads it (Swift's shortest form: `0.05`, `1e-07`).
    private static func number(_ value: Double) -> String { String(value.isFinite ? value : 0) }

    /// Seconds for a key's expiry: at most 30 days (longer circuits reopen for the fleet then).
    private static func duration(_ value: TimeInterval) -> String {
        number(value.isFinite ? min(max(value, 0), 2_592_000) : 2_592_000)
    }
}
