// WorkerDaemon: jobs from a queue call an API through ONE shared HTTPTransport, as async sends
// on the session's transfer loop (16 in flight by default; none holds a thread while its request
// is on the wire) or, with --threads N, from N worker threads sending blocking requests; with
// request/response logging, a retry policy with a retry budget, a rate per origin and a circuit
// breaker. It stops by itself after `--jobs` jobs, or cleanly on SIGINT/SIGTERM (in-flight jobs finish and the queue drains; a
// second signal cancels what is still running), and prints a summary.
//
//   swift run WorkerDaemon                         # 200 jobs, 16 in flight
//   swift run WorkerDaemon --jobs 1000 --threads 8 --log-level notice
//   swift run WorkerDaemon --jobs 0                # until Ctrl-C (SIGINT) or SIGTERM
//   swift run WorkerDaemon --jobs 0 --metrics-port 9464   # and: curl http://127.0.0.1:9464/metrics
//   swift run WorkerDaemon --proxy http://user:password@proxy.internal:3128
//   swift run WorkerDaemon --feed                  # jobs from an NDJSON feed, as its lines arrive
//   swift run WorkerDaemon --ws-feed               # the same feed over a WebSocket (when libcurl has them)
//
// The API is a local server this program starts on 127.0.0.1. It answers some requests with
// 503 so that the retry policy has work to do: the first attempt of every job whose id ends in
// 3 (retried once, then done), and every attempt of jobs 17, 67, 117, … (given up after 3).
import Dispatch
import ExampleServer
import HTTPTransportRedis
import Foundation
import HTTPTransport
import Logging
import Prometheus
import Synchronization

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))

// Every logger (the transport's interceptors included) writes to standard output.
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardOutput(label: label)
    handler.logLevel = options.logLevel
    return handler
}
let log = Logger(label: "WorkerDaemon")

// MARK: - The API (a local server)

/// Attempts seen per job id, so the server can fail a first attempt and accept the next.
let attemptsByJob = Mutex<[Int: Int]>([:])

/// The simulated outage, when one was asked for.
let outage = options.outageAt.map { Outage(start: $0, length: options.outageFor) }

let server = try ExampleServer { request in
    if let outage, outage.isDown() {
        return .json(["error": ["code": "overloaded", "message": "The API is down"]], status: 503)
    }
    let parts = request.pathComponents
    if request.method == "GET", parts == ["api", "feed"] { return jobFeed(count: options.jobs) }
    if request.method == "GET", parts == ["api", "feed", "ws"] { return jobFeed(over: request, count: options.jobs) }
    guard request.method == "PUT", parts.count == 3, parts[0] == "api", parts[1] == "results", let id = Int(parts[2]) else {
        return .json(["error": ["code": "not_found", "message": "No route \(request.method) \(request.path)"]], status: 404)
    }
    let attempt = attemptsByJob.withLock { attempts in
        attempts[id, default: 0] += 1
        return attempts[id]!
    }
    if id % 50 == 17 || (id % 10 == 3 && attempt == 1) {
        return .json(["error": ["code": "overloaded", "message": "Try again later"]], status: 503)
    }
    usleep(options.workMilliseconds.map { UInt32($0) * 1000 } ?? UInt32.random(in: 300...2500))  // some work
    let body = request.json ?? [:]
    return .json(["job": id, "stored": true, "worker": body["worker"] ?? "?"], status: 200)
}

// MARK: - Metrics, scraped by Prometheus

/// The transport's metrics (durations, body bytes, active sends, pooled handles), kept here and
/// served in Prometheus' text format when `--metrics-port` is given.
let registry = PrometheusCollectorRegistry()
var sessionConfiguration = Session.Configuration()
var metricsServer: ExampleServer?
if let port = options.metricsPort {
    sessionConfiguration.metricsFactory = PrometheusMetricsFactory(registry: registry)
    do {
        metricsServer = try ExampleServer(port: port) { request in
            guard request.method == "GET", request.path == "/metrics" else { return .text("Not found\n", status: 404) }
            return ExampleServer.Response(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                                          body: Data(registry.emitToString().utf8))
        }
    } catch {
        FileHandle.standardError.write(Data("WorkerDaemon: cannot listen on 127.0.0.1:\(port) for metrics\n".utf8))
        exit(1)
    }
}

// MARK: - One transport, shared by every worker thread

/// Retries announced by the retry policy.
let retries = Atomic<Int>(0)
/// Sends the open circuit refused (nothing reached the server).
let refusals = Atomic<Int>(0)

/// The session: one pool of connections, through the proxy if one was given, its metrics in the
/// registry above when they are served.
sessionConfiguration.proxy = options.proxy.map { Proxy($0) }
// Resilience (README "Resilience"): a rate per origin so a backlog never floods the API (and a
// 429/503 with Retry-After pauses every thread, not just one), and a circuit breaker so that
// when the API is down the workers fail fast instead of queueing doomed requests.
if !options.noResilience { sessionConfiguration.hostLimits = HostLimits(requestsPerSecond: options.rate, burst: options.burst) }
if options.breakerThreshold > 0, !options.noResilience {
    sessionConfiguration.circuitBreaker = CircuitBreaker(failureThreshold: options.breakerThreshold,
                                                         openDuration: options.breakerOpenSeconds)
}
// A fleet (DocC "Running a fleet"): with --redis, every daemon given the same Redis shares the
// rate, pauses, circuit and retry budget of an origin; if Redis fails, each goes on alone.
if let redis = options.redis {
    do {
        sessionConfiguration.sharedState = try RedisSharedState(url: redis, keyPrefix: "worker-daemon")
    } catch {
        FileHandle.standardError.write(Data("WorkerDaemon: \(error.message)\n".utf8))
        exit(2)
    }
}
let session = Session(configuration: sessionConfiguration)

let transport = HTTPTransport(
    session: session,
    requestInterceptors: [
        // Logged at debug: run with `--log-level debug` to see each request go out.
        LogRequestInterceptor(logLevel: .url, level: .debug),
    ],
    responseInterceptors: [
        // One line per response (retried attempts included), with the time and the request id.
        LogResponseInterceptor(logLevel: .status, level: .info),
        ClarifyErrorInterceptor(),
    ],
    retrier: RetryPolicy(
        maxAttempts: 3,     // the first attempt and two retries
        baseDelay: 0.05,    // full jitter: 0…50 ms, then 0…100 ms
        maxDelay: 1,
        onRetry: { context, delay in
            retries.add(1, ordering: .relaxed)
            log.notice("retrying \(context.request.method.rawValue) \(context.request.url.path) after attempt \(context.attempt) (\(context.error.httpStatusCode.map { "\($0.rawValue)" } ?? "\(context.error.code)")) in \(String(format: "%.0f", delay * 1000)) ms")
        },
        // At most 20% more requests than jobs (plus 10 a second) when the API fails: no retry storm.
        budget: options.noResilience ? nil : RetryBudget(ratio: options.retryBudget, minimumPerSecond: 10),
        // A POST gets a key the server can use to recognise a retry (the jobs' PUTs need none).
        idempotencyKeyHeader: "Idempotency-Key"
    )
)

/// With a proxy, one request first shows that it works (any HTTP status does); a proxy that
/// cannot be used stops the daemon with the library's explanation.
let probes: Int = {
    guard let proxy = session.configuration.proxy else { return 0 }
    let probe = transport.send(request: HTTPRequest(endpoint: server.baseURL + "/api/health", timeout: 10))
    if let error = probe.error, error.httpStatusCode == nil {
        FileHandle.standardError.write(Data("WorkerDaemon: the proxy \(proxy) cannot be used: \(error.message)\n".utf8))
        server.stop()
        exit(2)
    }
    print("proxy: \(proxy) reaches the API")
    return 1
}()

/// Every request starts from this one: the API's address and the headers all calls share.
let api = HTTPRequest(endpoint: server.baseURL + "/api", timeout: 10)
    .with(header: "Accept", value: "application/json")
    .with(header: "User-Agent", value: "WorkerDaemon/1.0")

let stats = Stats()

// MARK: - Stopping

/// Turns signals (and the time limit) into a drain, then an abort.
final class Stopper: Sendable {
    let queue: JobQueue
    let cancellation = CancellationHandle()
    private let reasons = Mutex<[String]>([])

    init(queue: JobQueue) { self.queue = queue }

    /// The first request drains, the second cancels what is running and drops what is queued.
    func stop(because reason: String) {
        let count = reasons.withLock { reasons in
            reasons.append(reason)
            return reasons.count
        }
        if count == 1 {
            queue.close()
            log.notice("\(reason): stopping; in-flight jobs finish and \(queue.count) queued jobs drain (signal again to abort)")
        } else if count == 2 {
            let dropped = queue.close(discardingQueued: true)
            stats.state.withLock { $0.discarded += dropped }
            cancellation.cancel()
            log.warning("\(reason) again: cancelling in-flight jobs, dropping \(dropped) queued jobs")
        }
    }

    var reason: String? { reasons.withLock { $0.first } }
}

let queue = JobQueue(capacity: (options.threads ?? options.inFlight) * 4)
let stopper = Stopper(queue: queue)

// Signals are handled on a queue of their own, never on the main thread, which waits for the
// workers below (see Signals.swift).
let signalQueue = DispatchQueue(label: "WorkerDaemon.signals")
let signalSources = handleSignals([(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")], on: signalQueue) { name in
    stopper.stop(because: name)
}
if options.duration > 0 {
    signalQueue.asyncAfter(deadline: .now() + options.duration) { @Sendable in
        stopper.stop(because: "time limit of \(options.duration) s")
    }
}

// MARK: - Threads

let everyone = DispatchGroup()
let started = ContinuousClock.now

log.notice("""
    \(options.threads.map { "\($0) worker threads" } ?? "\(options.inFlight) async sends in flight"), \(options.jobs == 0 ? "jobs until a signal" : "\(options.jobs) jobs"), \
    API at \(server.baseURL) (pid \(getpid()))
    """)
if let metricsServer { log.notice("metrics: \(metricsServer.baseURL)/metrics") }

// The producer: feeds the queue (blocking while it is full) until the jobs run out or a stop,
// from its own count or, with --feed, from the API's feed as it streams in.
everyone.enter()
let producer = Thread {
    if options.feed {
        followFeed()
    } else {
        var id = 1
        while options.jobs == 0 || id <= options.jobs {
            guard queue.push(Job(id: id)) else { break }
            id += 1
        }
    }
    queue.close()
    everyone.leave()
}
producer.name = "producer"
producer.start()

/// One job's result: counted, logged, and after a refusal by the open circuit a pause (the API
/// is down and nothing was sent: give it a moment rather than burn through the queue).
func finish(_ job: Job, _ result: HTTPTransport.Result, since begin: ContinuousClock.Instant, worker: String) -> Bool {
    let elapsed = ContinuousClock.now - begin
    let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    stats.record(result, milliseconds: milliseconds, job: job)
    if result.isSuccess { outage?.jobDone() }
    if let error = result.error, error.code != .cancelled {
        log.warning("job \(job.id) failed: \(error.code) \(error.httpStatusCode?.rawValue ?? 0) \(error.responseBodyErrorMessage ?? "")", metadata: ["worker": "\(worker)"])
    }
    guard result.error?.code == .circuitOpen else { return false }
    refusals.add(1, ordering: .relaxed)
    return true
}

/// The request of one job.
func request(for job: Job, worker: String) -> HTTPRequest {
    HTTPRequest(httpMethod: .put, endpoint: "/results/\(job.id)", base: api)
        .with(parameters: ["job": job.id, "worker": worker], encoding: .json)
}

if let threads = options.threads {
    // Blocking sends, one worker thread each.
    for index in 1...threads {
        everyone.enter()
        let name = "worker-\(index)"
        let worker = Thread {
            let control = TransferControl(cancellation: stopper.cancellation)
            while let job = queue.pop() {
                let begin = ContinuousClock.now
                let result = transport.send(request: request(for: job, worker: name), control: control)
                if finish(job, result, since: begin, worker: name) { Thread.sleep(forTimeInterval: 0.1) }
            }
            everyone.leave()
        }
        worker.name = name
        worker.start()
    }
} else {
    // Async sends on the session's transfer loop: one thread takes jobs, `inFlight` of them are
    // in flight at once, and none holds a thread while its request is on the wire.
    everyone.enter()
    let dispatcher = Thread {
        runAsyncWorkers(inFlight: options.inFlight, cancellation: stopper.cancellation) { job in
            let begin = ContinuousClock.now
            let result: HTTPTransport.Result
            do throws(HTTPTransportError) {
                result = .success(response: try await transport.send(request(for: job, worker: "async")))
            } catch {
                result = .failure(error: error)
            }
            if finish(job, result, since: begin, worker: "async") { try? await Task.sleep(for: .milliseconds(100)) }
        }
        everyone.leave()
    }
    dispatcher.name = "dispatcher"
    dispatcher.start()
}

everyone.wait()
for source in signalSources { source.cancel() }
let wall = ContinuousClock.now - started
let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18

// MARK: - Summary

let final = stats.state.withLock { $0 }
let sorted = final.latencies.sorted()
let retried = retries.load(ordering: .relaxed)
let finished = final.done + final.failed + final.cancelled
func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }

let resilienceSummary = options.noResilience ? "off" : """
    \(options.rate > 0 ? "\(options.rate)/s, burst \(options.burst)" : "no rate") per origin; \
    circuit \(options.breakerThreshold > 0 ? "after \(options.breakerThreshold) failures for \(options.breakerOpenSeconds) s" : "off"); \
    retry budget \(options.retryBudget) + 10/s
    """
print("""

    stopped: \(stopper.reason ?? "all jobs done")
    summary: \(finished) jobs, done \(final.done), failed \(final.failed), retried \(retried), cancelled \(final.cancelled), \
    discarded \(final.discarded)
    latency: p50 \(ms(Stats.percentile(sorted, 50))), p90 \(ms(Stats.percentile(sorted, 90))), \
    p99 \(ms(Stats.percentile(sorted, 99))), max \(ms(sorted.last ?? 0))
    throughput: \(String(format: "%.0f", Double(finished) / max(seconds, 0.001))) jobs/s over \(String(format: "%.2f", seconds)) s \
    \(options.threads.map { "on \($0) threads" } ?? "with \(options.inFlight) async sends in flight"); \(final.reused) of \(final.done) successes reused a pooled connection
    server: \(server.requestCount) requests received
    resilience: \(resilienceSummary); \(refusals.load(ordering: .relaxed)) sends refused by an open circuit
    """)

if let outage { print(outage.report()) }

// Sanity checks, so that scripts can trust the exit status.
var problems = final.unexpected
if stopper.reason == nil, options.jobs > 0, finished != options.jobs {
    problems.append("\(finished) jobs finished, \(options.jobs) expected")
}
let feeds = options.feed ? 1 : 0
let refused = refusals.load(ordering: .relaxed)
if final.cancelled == 0, server.requestCount != finished + retried + probes + feeds - refused {
    problems.append("the server received \(server.requestCount) requests, expected \(finished) jobs + \(retried) retries + \(probes) proxy check + \(feeds) feed - \(refused) refused by the circuit")
}
server.stop()
metricsServer?.stop()
if problems.isEmpty {
    print("result: ok")
    exit(0)
}
print("result: \(problems.count) unexpected problems")
for problem in problems.prefix(20) { print("  - \(problem)") }
exit(1)
