import Foundation
import HTTPTransport

/// What the soak allows: time-outs, the retry policy, and the bounds that fail the run.
enum Limits {
    /// Seconds one attempt may take; the server's stalls last longer.
    static let requestTimeout: TimeInterval = 2
    static let retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.05, maxDelay: 0.5, maxTotalTime: 4)
    /// The longest a send may take: the retry budget, one more attempt, and slack for a loaded machine.
    static let sendBound: TimeInterval = retryPolicy.maxTotalTime + requestTimeout + 5
    /// Growth allowed from the start to the end (the pool keeps up to `maxIdleHandles` connections).
    static let descriptorBound = 24
    static let threadBound = 4
    /// Resident memory may grow this much after the first minute (allocator caches, pool warm-up).
    static let residentBoundKiB = 64 * 1024
    /// Successes expected of the fault-free kinds: slow responses on a loaded machine may time out.
    static let expectedSuccessRate = 0.99
}

/// One worker's loop: random faults, one request at a time, until the deadline.
struct Worker: Sendable {
    let transport: HTTPTransport
    let ports: [Listener: Int]
    let tally: Tally

    func run(until deadline: Date) {
        while Date() < deadline {
            let (fault, id, request) = next()
            let started = ContinuousClock.now
            record(fault, id, transport.send(request: request), since: started)
        }
    }

    /// The same loop with async sends (on the session's transfer loop).
    func runAsync(until deadline: Date) async {
        while Date() < deadline {
            let (fault, id, request) = next()
            let started = ContinuousClock.now
            let result: HTTPTransport.Result
            do throws(HTTPTransportError) {
                result = .success(response: try await transport.send(request))
            } catch {
                result = .failure(error: error)
            }
            record(fault, id, result, since: started)
        }
    }

    /// A random fault, and the request that asks the server for it.
    private func next() -> (Fault, UInt64, HTTPRequest) {
        var generator = SystemRandomNumberGenerator()
        let fault = Fault.random(using: &generator)
        let id = UInt64.random(in: 1...UInt64.max, using: &generator)
        let scheme = fault.listener == .http ? "http" : "https"
        let endpoint = "\(scheme)://localhost:\(ports[fault.listener] ?? 0)/chaos/\(fault.name)?n=\(id)"
        return (fault, id, HTTPRequest(endpoint: endpoint, timeout: Limits.requestTimeout))
    }

    private func record(_ fault: Fault, _ id: UInt64, _ result: HTTPTransport.Result, since started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        tally.record(fault: fault, id: id, result: result,
                     seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}
