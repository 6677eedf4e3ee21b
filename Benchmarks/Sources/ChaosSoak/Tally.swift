import Foundation
import HTTPTransport

/// The soak's counts, shared by the workers (a lock around plain counters).
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var requests = 0
    private var successes = 0
    private var failuresByCode: [String: Int] = [:]
    private var outcomesByFault: [String: [String: Int]] = [:]
    private var expectedSuccesses = (asked: 0, got: 0)
    private var longest: Double = 0
    private var fatal: [String] = []

    func record(fault: Fault, id: UInt64, result: HTTPTransport.Result, seconds: Double) {
        let outcome: String
        var problem: String?
        switch result {
        case .success(let response):
            outcome = "success"
            if fault.expectation == .failure {
                problem = "\(fault.label) passed as a success (\(response.httpStatus.rawValue))"
            } else if (try? response.getJSONDictionary())?["n"] as? String != String(id) {
                problem = "\(fault.label) request \(id) got another body: \((response.getString() ?? "").prefix(60))"
            }
        case .failure(let error):
            outcome = error.httpStatusCode.map { "\(error.code) \($0.rawValue)" } ?? "\(error.code)"
        }
        if seconds > Limits.sendBound { problem = "\(fault.label) took \(String(format: "%.1f", seconds)) s (bound \(Limits.sendBound) s)" }
        lock.withLock {
            requests += 1
            if outcome == "success" { successes += 1 } else { failuresByCode[outcome, default: 0] += 1 }
            outcomesByFault[fault.label, default: [:]][outcome, default: 0] += 1
            if fault.expectation == .success {
                expectedSuccesses.asked += 1
                if outcome == "success" { expectedSuccesses.got += 1 }
            }
            longest = max(longest, seconds)
            if let problem, fatal.count < 20 { fatal.append(problem) }
        }
    }

    var summaryLine: String {
        lock.withLock { "\(requests) requests, \(successes) successes, \(requests - successes) failures" }
    }

    /// Everything that fails the soak.
    var problems: [String] {
        lock.withLock {
            var problems = fatal
            let rate = expectedSuccesses.asked == 0 ? 1 : Double(expectedSuccesses.got) / Double(expectedSuccesses.asked)
            if rate < Limits.expectedSuccessRate {
                problems.append("fault-free requests succeeded at \(String(format: "%.2f", rate * 100)) % "
                    + "(bound \(Limits.expectedSuccessRate * 100) %)")
            }
            return problems
        }
    }

    func report() {
        lock.withLock {
            writeLine("chaos: requests \(requests), successes \(successes), failures \(requests - successes); "
                + "longest send \(String(format: "%.2f", longest)) s (bound \(Limits.sendBound) s)")
            writeLine("chaos: failures by code:")
            for (code, count) in failuresByCode.sorted(by: { $0.value > $1.value }) { writeLine("  \(code): \(count)") }
            writeLine("chaos: outcomes by fault:")
            for (fault, outcomes) in outcomesByFault.sorted(by: { $0.key < $1.key }) {
                let text = outcomes.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                writeLine("  \(fault): \(text)")
            }
        }
    }
}
