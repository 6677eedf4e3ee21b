import Foundation
import Synchronization

/// A simulated outage of the API (`--outage-at`, `--outage-for`): the server answers 503 to every
/// request in that window of the run. The daemon then reports what the server received during
/// it and how soon after it the jobs flowed as fast as before (Benchmarks/outage.sh compares
/// this with and without the resilience settings).
final class Outage: Sendable {
    /// Seconds after the start when the API goes down, and for how long.
    let start: Double
    let length: Double
    private let began = ContinuousClock.now
    private let receivedDuringOutage = Atomic<Int>(0)
    /// Jobs done per tenth of a second since the start.
    private let doneByTenth = Mutex<[Int]>([])

    init(start: Double, length: Double) {
        self.start = start
        self.length = length
    }

    private var elapsed: Double {
        let duration = ContinuousClock.now - began
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Whether the API is down now (the server asks for each request).
    func isDown() -> Bool {
        let now = elapsed
        guard now >= start, now < start + length else { return false }
        receivedDuringOutage.add(1, ordering: .relaxed)
        return true
    }

    /// A job was done.
    func jobDone() {
        let tenth = Int(elapsed * 10)
        doneByTenth.withLock { counts in
            if counts.count <= tenth { counts.append(contentsOf: repeatElement(0, count: tenth - counts.count + 1)) }
            counts[tenth] += 1
        }
    }

    /// Two lines: the requests received during the outage, and the time from its end until a
    /// second's worth of jobs reached 90% of the rate before it.
    func report() -> String {
        let counts = doneByTenth.withLock { $0 }
        func done(from: Int, tenths: Int) -> Int {
            (from..<(from + tenths)).reduce(0) { $0 + ($1 < counts.count && $1 >= 0 ? counts[$1] : 0) }
        }
        let before = max(1, Int(start * 10) - 40)   // up to 4 s before the outage, skipping the first 0.1 s
        let beforeRate = Double(done(from: before, tenths: Int(start * 10) - before)) / (start - Double(before) / 10)
        let end = Int((start + length) * 10)
        let back = (end..<max(end, counts.count)).first { Double(done(from: $0, tenths: 10)) >= 0.9 * beforeRate }
        let recovery = back.map { String(format: "%.1f s", Double($0 - end) / 10) } ?? "not within the run"
        return """
            outage: 503 from \(start) s to \(start + length) s; the server received \(receivedDuringOutage.load(ordering: .relaxed)) requests during it
            recovery: \(String(format: "%.0f", beforeRate)) jobs/s before it; back to 90% of that \(recovery) after it ended
            """
    }
}
