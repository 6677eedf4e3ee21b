// The chaos soak: THREADS threads share one transport (with a RetryPolicy) for MINUTES against
// the fault-injecting chaos_server.py (resets, stalls, truncation, slow headers, bad gzip, 5xx,
// TLS closes). Reports requests, successes and failures by code, and the process's open file
// descriptors, threads and resident memory against the start. Fails (exit 1) on a send that
// outlasts its time-out, a success carrying another request's body, a fault passed off as a
// success, or growth past the bounds below. Run it through Benchmarks/chaos.sh.
//
// Usage: ChaosSoak HTTP_PORT HTTPS_PORT TLS_ABORT_PORT CA_FILE MINUTES [THREADS] [threads|async]
// (async: THREADS tasks awaiting async sends on the session's transfer loop instead of threads)
import Foundation
import HTTPTransport

let arguments = CommandLine.arguments
guard arguments.count >= 6, let httpPort = Int(arguments[1]), let httpsPort = Int(arguments[2]),
      let abortPort = Int(arguments[3]), let minutes = Double(arguments[5]) else {
    writeLine("usage: ChaosSoak HTTP_PORT HTTPS_PORT TLS_ABORT_PORT CA_FILE MINUTES [THREADS]")
    exit(2)
}
let threadCount = arguments.count > 6 ? Int(arguments[6]) ?? 16 : 16
let usesAsyncSends = arguments.count > 7 && arguments[7] == "async"
// Async sends also keep the session's loop thread and its executor threads (see Concurrency).
let threadBound = Limits.threadBound + (usesAsyncSends ? 1 + max(4, 2 * ProcessInfo.processInfo.activeProcessorCount) : 0)
let ports: [Listener: Int] = [.http: httpPort, .https: httpsPort, .tlsAbort: abortPort]

let transport = HTTPTransport(security: Security(trustedRootCertificates: URL(fileURLWithPath: arguments[4])),
                              retrier: Limits.retryPolicy)
let tally = Tally()
let worker = Worker(transport: transport, ports: ports, tally: tally)
let start = ProcessFigures.now()
let deadline = Date().addingTimeInterval(minutes * 60)
writeLine("chaos: \(threadCount) \(usesAsyncSends ? "tasks sending async" : "threads") for \(minutes) min; start: \(start)")

let workers = DispatchGroup()
for index in 0..<threadCount {
    workers.enter()
    if usesAsyncSends {
        // Detached: a task made in top-level code would be the main actor's, whose thread waits below.
        Task.detached {
            await worker.runAsync(until: deadline)
            workers.leave()
        }
        continue
    }
    let thread = Thread {
        worker.run(until: deadline)
        workers.leave()
    }
    thread.name = "chaos-\(index)"
    thread.start()
}

var warm: ProcessFigures?
var minute = 0
while workers.wait(timeout: .now() + 60) == .timedOut {
    minute += 1
    let figures = ProcessFigures.now()
    if minute == 1 { warm = figures }
    writeLine("chaos: minute \(minute): \(tally.summaryLine), \(figures)")
}

// The workers are gone; the pool keeps its idle connections.
let end = ProcessFigures.now()
tally.report()
writeLine("chaos: start \(start); end \(end) (bounds: descriptors +\(Limits.descriptorBound), threads "
    + "+\(threadBound), resident memory +\(Limits.residentBoundKiB / 1024) MiB after the first minute)")
var failures = tally.problems
if end.descriptors - start.descriptors > Limits.descriptorBound {
    failures.append("open descriptors grew by \(end.descriptors - start.descriptors) (bound \(Limits.descriptorBound))")
}
if end.threads - start.threads > threadBound {
    failures.append("threads grew by \(end.threads - start.threads) (bound \(threadBound))")
}
if let warm, end.residentKiB - warm.residentKiB > Limits.residentBoundKiB {
    failures.append("resident memory grew by \((end.residentKiB - warm.residentKiB) / 1024) MiB after the first minute "
        + "(bound \(Limits.residentBoundKiB / 1024) MiB)")
}
for failure in failures { writeLine("chaos: FAILED: \(failure)") }
writeLine(failures.isEmpty ? "chaos: passed" : "chaos: FAILED")
exit(failures.isEmpty ? 0 : 1)
