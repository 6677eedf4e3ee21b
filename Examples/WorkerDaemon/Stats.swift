import HTTPTransport
import Synchronization

/// What the workers did: counts by outcome, reused connections, latencies and unexpected failures.
final class Stats: Sendable {
    struct State {
        var done = 0
        var failed = 0
        var cancelled = 0
        var discarded = 0
        var reused = 0
        var latencies: [Double] = []  // milliseconds, every finished job
        var unexpected: [String] = []
    }

    let state = Mutex(State())

    func record(_ result: HTTPTransport.Result, milliseconds: Double, job: Job) {
        state.withLock { state in
            state.latencies.append(milliseconds)
            switch result {
            case .success(let response):
                state.done += 1
                if response.metrics.connectionReused { state.reused += 1 }
            case .failure(let error) where error.code == .cancelled:
                state.cancelled += 1
            case .failure(let error):
                state.failed += 1
                // The server's deliberate 503s are expected, and so is the circuit breaker
                // refusing after them; anything else is a bug.
                let overloaded = error.httpStatusCode == .serviceUnavailable && error.responseBodyErrorCode == "overloaded"
                if !overloaded, error.code != .circuitOpen {
                    state.unexpected.append("job \(job.id): \(error)")
                }
            }
        }
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))  // nearest rank
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
