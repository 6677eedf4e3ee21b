import Foundation
import Logging

/// The command line: what to run, for how long, and how verbosely.
struct Options {
    /// Jobs to run; 0 runs until a signal (or `duration`).
    var jobs = 200
    /// Worker threads, each sending blocking requests (`--threads`); nil: async sends instead.
    var threads: Int?
    /// Async sends in flight at once on the session's transfer loop, taken from the queue by one
    /// thread (the default form, `--in-flight`).
    var inFlight = 16
    /// Seconds after which the daemon stops as if signalled; 0: no limit.
    var duration: Double = 0
    /// The lowest level logged (`trace`, `debug`, `info`, `notice`, `warning`, `error`, `critical`).
    var logLevel: Logger.Level = .info
    /// Milliseconds the server works on each job; `nil`: 0.3 to 2.5 ms at random.
    var workMilliseconds: Int?
    /// Serve the transport's metrics in Prometheus' text format on this port (0: any free one).
    var metricsPort: Int?
    /// The proxy every request goes through (`nil`: the environment's, as curl reads it).
    var proxy: String?
    /// Jobs come from following the API's NDJSON feed as it streams in, not from a counter.
    var feed = false
    /// The feed comes over a WebSocket (when this libcurl has them; else the NDJSON feed).
    var webSocketFeed = false

    /// Requests a second to the API (`HostLimits`; 0: no rate, `Retry-After` pauses still apply).
    var rate: Double = 1_000
    /// Requests that may go at once after a quiet time.
    var burst = 50
    /// Consecutive failures that open the API's circuit (`CircuitBreaker`; 0: no breaker).
    var breakerThreshold = 20
    /// Seconds an open circuit refuses before one probe.
    var breakerOpenSeconds: Double = 5
    /// Retries allowed per first attempt over 10 s (`RetryBudget`), besides 10 a second.
    var retryBudget = 0.2
    /// Sends with none of the resilience settings (rate, breaker, budget): for comparison.
    var noResilience = false
    /// A simulated outage: seconds after the start when the API answers only 503, and for how long.
    var outageAt: Double?
    var outageFor: Double = 10
    /// Share the rate, pauses, circuit and retry budget with other processes through this Redis
    /// (`RedisSharedState`; `redis://host:port` or `unix:///path`).
    var redis: URL?

    static let usage = """
        usage: WorkerDaemon [--jobs N] [--in-flight N | --threads N] [--duration SECONDS] [--log-level LEVEL] [--work-ms N]
                            [--metrics-port PORT] [--proxy URL] [--feed] [--rate N] [--burst N]
                            [--breaker-threshold N] [--breaker-open SECONDS] [--retry-budget RATIO]
                            [--no-resilience] [--outage-at SECONDS] [--outage-for SECONDS] [--redis URL]
          --jobs N            jobs to run, then stop (default 200; 0 = until SIGINT/SIGTERM)
          --in-flight N       async sends in flight at once on the session's transfer loop (default 16)
          --threads N         instead: N worker threads, each sending blocking requests
          --duration SECONDS  stop as if signalled after this long (default: no limit)
          --log-level LEVEL   trace, debug, info (default), notice, warning, error
          --work-ms N         the server's time per job in ms (default: 0.3 to 2.5 at random)
          --metrics-port PORT serve metrics at http://127.0.0.1:PORT/metrics (0: any free port)
          --proxy URL         send through this proxy: http://, https://, socks5:// or socks5h://,
                              credentials as user:password@ (default: the environment's proxy)
          --feed              take the jobs from the API's NDJSON feed, each as its line arrives
                              (HTTPRequest.streaming), instead of numbering them here
          --ws-feed           the same feed over a WebSocket, one text message a job (with a
                              libcurl that has WebSockets; else the NDJSON feed)
          --rate N            requests a second to the API (default 1000; 0 = no rate)
          --burst N           requests that may go at once after a quiet time (default 50)
          --breaker-threshold N  consecutive failures that stop sending to the API (default 20; 0 = never)
          --breaker-open SECONDS how long it stays stopped before one probe (default 5)
          --retry-budget RATIO   retries per first attempt over 10 s, besides 10/s (default 0.2)
          --no-resilience     no rate, no circuit breaker, no retry budget (to compare)
          --outage-at SECONDS the API answers only 503 from this many seconds after the start …
          --outage-for SECONDS … for this long (default 10), then recovers; a report follows
          --redis URL         share the rate, Retry-After pauses, circuit and retry budget per API origin
                              with every process given the same Redis (redis://host:port or unix:///path)
        """

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var iterator = arguments.makeIterator()
        func value(_ name: String) -> String {
            guard let value = iterator.next() else { fail("\(name) needs a value") }
            return value
        }
        func fail(_ message: String) -> Never {
            FileHandle.standardError.write(Data("WorkerDaemon: \(message)\n\(usage)\n".utf8))
            exit(2)
        }
        while let argument = iterator.next() {
            switch argument {
            case "--jobs":
                guard let jobs = Int(value(argument)), jobs >= 0 else { fail("--jobs takes a count ≥ 0") }
                options.jobs = jobs
            case "--threads":
                guard let threads = Int(value(argument)), (1...256).contains(threads) else { fail("--threads takes 1…256") }
                options.threads = threads
            case "--in-flight":
                guard let count = Int(value(argument)), (1...10_000).contains(count) else { fail("--in-flight takes 1…10000") }
                options.inFlight = count
            case "--duration":
                guard let duration = Double(value(argument)), duration >= 0 else { fail("--duration takes seconds ≥ 0") }
                options.duration = duration
            case "--log-level":
                guard let level = Logger.Level(rawValue: value(argument)) else { fail("unknown log level") }
                options.logLevel = level
            case "--work-ms":
                guard let work = Int(value(argument)), (0...10_000).contains(work) else { fail("--work-ms takes 0…10000") }
                options.workMilliseconds = work
            case "--metrics-port":
                guard let port = Int(value(argument)), (0...65535).contains(port) else { fail("--metrics-port takes 0…65535") }
                options.metricsPort = port
            case "--proxy":
                options.proxy = value(argument)
            case "--feed":
                options.feed = true
            case "--ws-feed":
                options.feed = true
                options.webSocketFeed = true
            case "-h", "--help":
                print(usage)
                exit(0)
            default:
                guard options.parseResilience(argument, value: value, fail: fail) else { fail("unknown argument \(argument)") }
            }
        }
        return options
    }
}

extension Options {
    /// The resilience and outage options; `false` for an argument that is none of them.
    mutating func parseResilience(_ argument: String, value: (String) -> String, fail: (String) -> Never) -> Bool {
        switch argument {
        case "--rate":
            guard let rate = Double(value(argument)), rate >= 0 else { fail("--rate takes requests a second ≥ 0") }
            self.rate = rate
        case "--burst":
            guard let burst = Int(value(argument)), burst >= 1 else { fail("--burst takes a count ≥ 1") }
            self.burst = burst
        case "--breaker-threshold":
            guard let threshold = Int(value(argument)), threshold >= 0 else { fail("--breaker-threshold takes a count ≥ 0") }
            breakerThreshold = threshold
        case "--breaker-open":
            guard let open = Double(value(argument)), open >= 0 else { fail("--breaker-open takes seconds ≥ 0") }
            breakerOpenSeconds = open
        case "--retry-budget":
            guard let ratio = Double(value(argument)), ratio >= 0 else { fail("--retry-budget takes a ratio ≥ 0") }
            retryBudget = ratio
        case "--no-resilience":
            noResilience = true
        case "--redis":
            guard let url = URL(string: value(argument)), url.scheme == "redis" || url.scheme == "unix" else {
                fail("--redis takes redis://[user:password@]host:port[/db] or unix:///path/to/redis.sock")
            }
            redis = url
        case "--outage-at":
            guard let start = Double(value(argument)), start >= 1 else { fail("--outage-at takes seconds ≥ 1") }
            outageAt = start
        case "--outage-for":
            guard let length = Double(value(argument)), length > 0 else { fail("--outage-for takes seconds > 0") }
            outageFor = length
        default:
            return false
        }
        return true
    }
}
