// What every Swift benchmark client shares: the command line, the clock, peak memory, the
// payloads, and the one-line JSON result that run.sh reads. The C baseline
// (baseline/curl_baseline.c) speaks the same command line and prints the same line.
//
//   CLIENT get      BASE_URL COUNT            COUNT sequential GETs of BASE_URL/small.json
//   CLIENT threads  BASE_URL THREADS PER      THREADS threads × PER sequential GETs each
//   CLIENT post     BASE_URL COUNT            COUNT sequential POSTs of a 1 KiB JSON body to BASE_URL/post
//   CLIENT download BASE_URL BYTES            one GET of BASE_URL/big.bin into memory
//   CLIENT download-file BASE_URL BYTES PATH  one GET of BASE_URL/big.bin written to PATH
//   CLIENT fanout   BASE_URL COUNT            COUNT concurrent GETs of BASE_URL/small.json (fanout.sh;
//                                             the C program is baseline/fanout_multi.c)
//
// Every response is checked (status 200 and body size); failures are counted, not fatal.
import Foundation

#if canImport(Glibc)
import Glibc
#endif

public enum Workload: String, Sendable {
    case get, threads, post, download, fanout
    case downloadFile = "download-file"
}

/// The parsed command line.
public struct BenchArguments: Sendable {
    public let workload: Workload
    public let baseURL: String
    /// Requests per thread (`get`, `post`, `fanout`: the number of requests; `threads`: per thread).
    public let count: Int
    /// Threads (or concurrent tasks) for `threads`; 1 otherwise.
    public let threads: Int
    /// Expected body size for the downloads.
    public let bytes: Int
    /// The destination of `download-file`.
    public let path: String?
    /// Extra `--name value` options (e.g. `--interceptors 10`).
    public let options: [String: String]

    public var smallURL: String { baseURL + "/small.json" }
    public var postURL: String { baseURL + "/post" }
    public var bigURL: String { baseURL + "/big.bin" }

    public static func parse(_ arguments: [String] = CommandLine.arguments) -> BenchArguments {
        var positional: [String] = []
        var options: [String: String] = [:]
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--"), index + 1 < arguments.count {
                options[String(argument.dropFirst(2))] = arguments[index + 1]
                index += 2
            } else {
                positional.append(argument)
                index += 1
            }
        }
        guard positional.count >= 3, let workload = Workload(rawValue: positional[0]) else {
            let name = (arguments.first as NSString?)?.lastPathComponent ?? "client"
            FileHandle.standardError.write(Data("""
                usage: \(name) get|post|fanout BASE_URL COUNT | threads BASE_URL THREADS PER |
                       download BASE_URL BYTES | download-file BASE_URL BYTES PATH   [--option value]...

                """.utf8))
            exit(2)
        }
        let numbers = positional.dropFirst(2).compactMap { Int($0) }
        switch workload {
        case .get, .post, .fanout:
            return BenchArguments(workload: workload, baseURL: positional[1], count: numbers.first ?? 1000, threads: 1,
                                  bytes: 0, path: nil, options: options)
        case .threads:
            return BenchArguments(workload: workload, baseURL: positional[1], count: numbers.count > 1 ? numbers[1] : 1000,
                                  threads: numbers.first ?? 4, bytes: 0, path: nil, options: options)
        case .download, .downloadFile:
            return BenchArguments(workload: workload, baseURL: positional[1], count: 1, threads: 1,
                                  bytes: numbers.first ?? 0, path: positional.count > 3 ? positional[3] : nil, options: options)
        }
    }
}

/// The small JSON body the server returns from /small.json is checked by size only.
public enum Payload {
    /// The 1 KiB JSON body POSTed by every client: `{"data":"xxx…"}`, exactly 1,024 bytes.
    public static let postBody: Data = {
        let prefix = #"{"data":""#
        let suffix = #""}"#
        let filler = String(repeating: "x", count: 1024 - prefix.utf8.count - suffix.utf8.count)
        return Data((prefix + filler + suffix).utf8)
    }()

    /// The POST body as a dictionary (for clients that encode JSON themselves).
    public static var postDictionary: [String: Any] {
        (try? JSONSerialization.jsonObject(with: postBody) as? [String: Any]) ?? [:]
    }
}

/// A field of /proc/self/status in KiB (`VmHWM`: peak resident set; `VmRSS`: resident now).
public func statusKiB(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
    }
    return 0
}

/// VmHWM (peak resident set) of this process, in KiB.
public func peakResidentKiB() -> Int { statusKiB("VmHWM") }

/// Resident memory just before the timed part (after warm-up), in KiB; `report` prints it.
nonisolated(unsafe) public var residentAtStartKiB = 0

/// Call right before the timed part starts.
public func markStart() {
    residentAtStartKiB = statusKiB("VmRSS")
    cpuAtStart = processCPUSeconds()
}

nonisolated(unsafe) public var cpuAtStart = 0.0

/// User and system CPU seconds of the whole process so far (every thread).
public func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Counts failures across threads.
public final class Failures: @unchecked Sendable {
    private var count = 0
    private var first: String?
    private let lock = NSLock()

    public init() {}

    public func add(_ description: String) {
        lock.lock()
        count += 1
        if first == nil { first = description }
        lock.unlock()
    }

    public var total: Int { lock.lock(); defer { lock.unlock() }; return count }
    public var firstDescription: String? { lock.lock(); defer { lock.unlock() }; return first }
}

/// Counts events across threads (new connections, HTTP/2 responses).
public final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()

    public init() {}

    public func increment() { lock.lock(); value += 1; lock.unlock() }
    public var total: Int { lock.lock(); defer { lock.unlock() }; return value }
}

/// Prints the result line run.sh reads, and the first failure (if any) on standard error.
public func report(client: String, _ arguments: BenchArguments, _ timed: Timed, failures: Failures,
                   extra: [String: String] = [:]) {
    if let first = failures.firstDescription {
        FileHandle.standardError.write(Data("\(client) \(arguments.workload.rawValue): \(failures.total) failures, first: \(first)\n".utf8))
    }
    var fields = [
        "\"client\":\"\(client)\"",
        "\"workload\":\"\(arguments.workload.rawValue)\"",
        "\"ops\":\(timed.operations)",
        "\"seconds\":\(String(format: "%.6f", timed.seconds))",
        "\"bytes\":\(timed.bytes)",
        "\"errors\":\(failures.total)",
        "\"vmhwm_kib\":\(peakResidentKiB())",
        "\"rss_start_kib\":\(residentAtStartKiB)",
        // CPU from markStart() on: the timed part's (and whatever else the process did meanwhile).
        "\"cpu_seconds\":\(String(format: "%.4f", processCPUSeconds() - cpuAtStart))",
    ]
    for (key, value) in extra.sorted(by: { $0.key < $1.key }) { fields.append("\"\(key)\":\(value)") }
    print("{" + fields.joined(separator: ",") + "}")
    if ProcessInfo.processInfo.environment["BENCH_SMAPS"] == "1" { printLargestMappings() }
    fflush(nil)  // every stream
}

/// With BENCH_SMAPS=1: the mappings holding the most resident memory, on standard error (to see
/// what a client's resident size is made of).
func printLargestMappings() {
    guard let smaps = try? String(contentsOfFile: "/proc/self/smaps", encoding: .utf8) else { return }
    var rows: [(Int, Int, String)] = []
    var name = ""
    var rss = 0
    for line in smaps.split(separator: "\n") {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        if let first = parts.first, first.contains("-"), parts.count >= 5 {
            name = parts.count >= 6 ? String(parts[5]) : "[anonymous]"
        } else if line.hasPrefix("Rss:") {
            rss = Int(parts[1]) ?? 0
        } else if line.hasPrefix("Anonymous:") {
            rows.append((rss, Int(parts[1]) ?? 0, name))
        }
    }
    var byName: [String: (Int, Int)] = [:]
    for (rss, anonymous, name) in rows {
        let sum = byName[name] ?? (0, 0)
        byName[name] = (sum.0 + rss, sum.1 + anonymous)
    }
    for (name, sizes) in byName.sorted(by: { $0.value.0 > $1.value.0 }).prefix(15) {
        FileHandle.standardError.write(Data("\(sizes.0) KiB resident (\(sizes.1) anonymous) \(name)\n".utf8))
    }
}
