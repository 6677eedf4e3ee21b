import Foundation
import Logging

/// The command line: what to run, for how long, and how verbosely.
struct Options {
    /// Jobs to run; 0 runs until a signal (or `duration`).
    var jobs = 200
    /// Worker threads.
    var threads = 4
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

    static let usage = """
        usage: WorkerDaemon [--jobs N] [--threads N] [--duration SECONDS] [--log-level LEVEL] [--work-ms N]
                            [--metrics-port PORT] [--proxy URL] [--feed]
          --jobs N            jobs to run, then stop (default 200; 0 = until SIGINT/SIGTERM)
          --threads N         worker threads sharing one transport (default 4)
          --duration SECONDS  stop as if signalled after this long (default: no limit)
          --log-level LEVEL   trace, debug, info (default), notice, warning, error
          --work-ms N         the server's time per job in ms (default: 0.3 to 2.5 at random)
          --metrics-port PORT serve metrics at http://127.0.0.1:PORT/metrics (0: any free port)
          --proxy URL         send through this proxy: http://, https://, socks5:// or socks5h://,
                              credentials as user:password@ (default: the environment's proxy)
          --feed              take the jobs from the API's NDJSON feed, each as its line arrives
                              (HTTPRequest.streaming), instead of numbering them here
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
            case "-h", "--help":
                print(usage)
                exit(0)
            default:
                fail("unknown argument \(argument)")
            }
        }
        return options
    }
}
