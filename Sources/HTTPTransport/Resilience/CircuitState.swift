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
    private(set) var consecutiveFailures = 0
    private var lastFailure = ""
    /// When the circuit opened (monotonic seconds, and the date for messages); nil while closed.
    private var opened: (at: TimeInterval, date: Date)?
    /// When the probe under way started, if one is.
    private var probeStarted: Date?

    init(breaker: CircuitBreaker) { self.breaker = breaker }

    /// Closed with no failure counted: nothing to remember.
    var isIdle: Bool { opened == nil && consecutiveFailures == 0 }

    mutating func admit(origin: Origin, now: TimeInterval, date: Date) -> Admission {
        guard let opened else { return .send }
        let until = opened.date.addingTimeInterval(breaker.openDuration)
        let since = Self.format(opened.date)
        if now < opened.at + breaker.openDuration {
            return .refuse("The circuit for \(origin) is open since \(since) until \(Self.format(until)) after \(breaker.failureThreshold) consecutive failure(s) (the last: \(lastFailure)); nothing was sent. The first send after that probes the origin.")
        }
        if let probeStarted {
            return .refuse("The circuit for \(origin) is open since \(since); its open time ended at \(Self.format(until)), and the one probe, sent at \(Self.format(probeStarted)), has not answered yet, so nothing was sent. The circuit closes when the probe succeeds.")
        }
        probeStarted = date
        return .probe
    }

    mutating func record(_ outcome: Outcome, probe: Bool, now: TimeInterval, date: Date) {
        switch outcome {
        case .success:
            // A late answer to a send made before the circuit opened does not close it: only the probe does.
            guard probe || opened == nil else { return }
            consecutiveFailures = 0
            opened = nil
            probeStarted = nil
        case .failure(let reason):
            if probe {
                lastFailure = "the probe: " + reason
                opened = (now, date)
                probeStarted = nil
            } else if opened == nil {
                consecutiveFailures += 1
                lastFailure = reason
                if consecutiveFailures >= breaker.failureThreshold { opened = (now, date) }
            }
        case .neutral:
            // A probe that ended without a verdict frees the way for the next one.
            if probe { probeStarted = nil }
        }
    }

    /// How the circuit counts an exchange's response.
    static func outcome(of response: RawResponse) -> Outcome {
        if let error = response.error {
            switch error.code {
            case .cannotConnect, .nameResolution, .timeout, .tlsFailure, .badResponse:
                return .failure("\(TelemetryNames.errorType(error.code)): \(error.message)")
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
