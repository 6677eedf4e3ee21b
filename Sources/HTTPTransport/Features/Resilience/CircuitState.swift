import Foundation

/// One origin's circuit: closed (counting consecutive failures), open (refusing until its open
/// time is over), or open with its one probe under way.
struct CircuitState: Sendable {
    /// What the circuit lets a send do.
    enum Admission: Equatable {
        /// Send (the circuit is closed).
        case send
        /// Send as the one probe of an open circuit.
        case probe
        /// Do not send: the circuit is open (its refusal message).
        case refuse(String)

        var isRefusal: Bool {
            if case .refuse = self { return true }
            return false
        }
    }

    /// How an exchange counts for the circuit.
    enum Outcome {
        /// The origin answered (any status but 500, 502, 503 or 504).
        case success
        /// The origin failed (no connection, name, time-out, TLS, bad response, 500/502/503/504).
        case failure(String)
        /// Says nothing about the origin (cancelled, refused by a local policy, …).
        case neutral
    }

    let breaker: CircuitBreaker
    let origin: Origin
    private(set) var consecutiveFailures = 0
    /// When the circuit opened (monotonic seconds); nil while closed.
    private var openedAt: TimeInterval?
    /// What a send gets while the circuit is open, and while its probe is under way: written
    /// once when that starts, so that a storm of refusals formats nothing.
    private var openRefusal = ""
    private var probeRefusal: String?

    init(breaker: CircuitBreaker, origin: Origin) {
        self.breaker = breaker
        self.origin = origin
    }

    /// Closed with no failure counted: nothing to remember.
    var isIdle: Bool { openedAt == nil && consecutiveFailures == 0 }

    mutating func admit(now: TimeInterval, date: Date) -> Admission {
        guard let openedAt else { return .send }
        if now < openedAt + breaker.openDuration { return .refuse(openRefusal) }
        if let probeRefusal { return .refuse(probeRefusal) }
        probeRefusal = Self.probeRefusal(origin, since: date)
        return .probe
    }

    mutating func record(_ outcome: Outcome, probe: Bool, now: TimeInterval, date: Date) {
        switch outcome {
        case .success:
            // A late answer to a send made before the circuit opened does not close it: only the probe does.
            guard probe || openedAt == nil else { return }
            consecutiveFailures = 0
            openedAt = nil
            probeRefusal = nil
        case .failure(let reason):
            if probe {
                open(now: now, date: date, after: "its probe failed (\(reason))")
            } else if openedAt == nil {
                consecutiveFailures += 1
                if consecutiveFailures >= breaker.failureThreshold {
                    open(now: now, date: date, after: "\(consecutiveFailures) consecutive failures (the last: \(reason))")
                }
            }
        case .neutral:
            // A probe that ended without a verdict frees the way for the next one.
            if probe { probeRefusal = nil }
        }
    }

    private mutating func open(now: TimeInterval, date: Date, after why: String) {
        openedAt = now
        probeRefusal = nil
        openRefusal = Self.openRefusal(origin, since: date, until: date.addingTimeInterval(breaker.openDuration), after: why)
    }

    /// What a send gets while the circuit is open.
    static func openRefusal(_ origin: Origin, since: Date, until: Date, after why: String) -> String {
        "The circuit for \(origin) is open since \(format(since)) until \(format(until)) after \(why); nothing was sent. The first send after that probes the origin."
    }

    /// What a send gets while the circuit's probe is under way.
    static func probeRefusal(_ origin: Origin, since: Date) -> String {
        "The circuit for \(origin) is open; its open time is over, and the one probe, sent at \(format(since)), has not answered yet, so nothing was sent. The circuit closes when the probe succeeds."
    }

    /// How the circuit counts an exchange's response.
    static func outcome(of response: RawResponse) -> Outcome {
        if let error = response.error {
            switch error.code {
            case .cannotConnect, .nameResolution, .timeout, .tlsFailure, .badResponse:
                return .failure("\(error.code.snakeCaseName): \(error.message)")
            default:
                return .neutral
            }
        }
        guard let status = response.statusCode else { return .failure("no response status") }
        switch status.rawValue {
        case 500, 502, 503, 504: return .failure("status \(status.rawValue) \(status.reasonPhrase)")
        default: return .success
        }
    }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
