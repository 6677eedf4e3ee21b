// The handshake storm (issue 20 item 12): THREADS threads released at once, each doing one
// blocking send through one shared transport, to an HTTPS origin (nginx, h2 or HTTP/1.1) or
// (every MUTE-th thread) to a server that accepts TCP and never answers the ClientHello, so
// many TLS handshakes time out together. ROUNDS storms run in one process; with FRESH=1 each
// round has a new transport (its share destroyed after the round). Exits non-zero on a send
// that outlasts its time-out by far; a heap corruption aborts the process. Run it through
// Benchmarks/handshake-storm.sh (plain, under AddressSanitizer, or with MALLOC_CHECK_=3).
//
// Usage: HandshakeStorm GOOD_URL MUTE_URL CA_FILE THREADS ROUNDS
// Environment: MUTE (default 4; 0: none), PIN (a leaf SHA-256: the callback path, no TLS
//   session sharing), HTTP (auto | 1.1), CONNECT_TIMEOUT (s, default 1), FRESH (0 | 1),
//   EXIT_AFTER (s: the process exits then, sends still in flight, as a program ending does)
import Foundation
import HTTPTransport

/// A line on standard output at once (a crash must not swallow what was said before it).
@Sendable func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count == 6, let threads = Int(arguments[4]), let rounds = Int(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: HandshakeStorm GOOD_URL MUTE_URL CA_FILE THREADS ROUNDS\n".utf8))
    exit(2)
}
let (goodURL, muteURL, caFile) = (arguments[1], arguments[2], URL(fileURLWithPath: arguments[3]))
let environment = ProcessInfo.processInfo.environment
let mute = Int(environment["MUTE"] ?? "") ?? 4
let pin = environment["PIN"].flatMap { $0.isEmpty ? nil : $0 }
let connectTimeout = Double(environment["CONNECT_TIMEOUT"] ?? "") ?? 1
let fresh = environment["FRESH"] == "1"
if let exitAfter = Double(environment["EXIT_AFTER"] ?? "") {
    Thread.detachNewThread {
        Thread.sleep(forTimeInterval: exitAfter)
        say("storm: exit after \(exitAfter) s, sends in flight")
        exit(0)
    }
}

func makeTransport() -> HTTPTransport {
    var configuration = Session.Configuration()
    configuration.connectTimeout = connectTimeout
    configuration.httpVersion = environment["HTTP"] == "1.1" ? .http1_1 : .automatic
    let host = URL(string: goodURL)?.host ?? "127.0.0.1"
    let pins = pin.map { [TrustPolicyManager.Certificate(host: host, fingerprint: .sha256(fingerprint: $0))] } ?? []
    let security = Security(certificates: pins, trustedRootCertificates: caFile)
    return HTTPTransport(session: Session(security: security, configuration: configuration))
}

/// Outcomes of one round, by kind.
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private var slowest: Double = 0
    private var examples: [String: String] = [:]

    func record(_ outcome: String, seconds: Double, example: String? = nil) {
        lock.lock()
        defer { lock.unlock() }
        counts[outcome, default: 0] += 1
        slowest = max(slowest, seconds)
        if let example, examples[outcome] == nil { examples[outcome] = example }
    }

    /// One message of each kind of failure.
    var failureExamples: [String] {
        lock.lock()
        defer { lock.unlock() }
        return examples.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)" }
    }

    var summary: (String, Double) {
        lock.lock()
        defer { lock.unlock() }
        return (counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "), slowest)
    }
}

/// Every thread waits here until all are started, so the sends (and their time-outs) coincide.
final class StartGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var open = false

    func wait() {
        condition.lock()
        while !open { condition.wait() }
        condition.unlock()
    }

    func release() {
        condition.lock()
        open = true
        condition.broadcast()
        condition.unlock()
    }
}

func storm(round: Int, transport: HTTPTransport) -> Bool {
    let tally = Tally()
    let gate = StartGate()
    let done = DispatchGroup()
    let requestTimeout = connectTimeout + 20
    for index in 0..<threads {
        done.enter()
        let url = mute > 0 && index % mute == 0 ? muteURL : goodURL
        let thread = Thread {
            gate.wait()
            let started = ContinuousClock.now
            let result = transport.send(request: HTTPRequest(endpoint: url, timeout: requestTimeout))
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            switch result {
            case .success(let response):
                tally.record("\(response.metrics.httpVersion)-\(response.httpStatus.rawValue)", seconds: seconds)
            case .failure(let error):
                tally.record("\(error.code)\(url == muteURL ? "(mute)" : "")", seconds: seconds, example: error.message)
            }
            done.leave()
        }
        thread.stackSize = 512 * 1024
        thread.start()
    }
    let started = Date()
    gate.release()
    done.wait()
    let (summary, slowest) = tally.summary
    say("round \(round): \(threads) threads in \(String(format: "%.1f", Date().timeIntervalSince(started))) s, "
          + "slowest send \(String(format: "%.1f", slowest)) s: \(summary)")
    tally.failureExamples.forEach(say)
    return slowest <= requestTimeout + 10
}

say("storm: \(threads) threads × \(rounds) rounds, every \(mute == 0 ? "no" : "\(mute)th") thread to the mute server, "
      + "pin \(pin == nil ? "off (TLS sessions shared)" : "on (no TLS session sharing)"), HTTP "
      + "\(environment["HTTP"] ?? "auto"), connect time-out \(connectTimeout) s, \(fresh ? "a new" : "one") transport per round")
var transport: HTTPTransport? = makeTransport()
var healthy = true
for round in 1...max(1, rounds) {
    if fresh && round > 1 { transport = makeTransport() }
    if let current = transport { healthy = storm(round: round, transport: current) && healthy }
}
transport = nil
say(healthy ? "storm: done" : "storm: FAILED: a send outlasted its time-out by more than 10 s")
exit(healthy ? 0 : 1)
