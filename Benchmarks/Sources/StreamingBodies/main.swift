// Streamed response bodies: throughput of a stream read as fast as possible against the same
// body downloaded to memory (same run, same server), and the peak resident memory of a 1 GiB
// stream read slowly (the bounded buffer pauses the transfer), and single timed reads for
// streaming.sh, which sets them beside curl and a C program. Run through Benchmarks/streaming.sh.
// Usage: StreamingBodies BASE_URL throughput|slow|read [BYTES [RUNS]]; the body is
// BASE_URL/bytes/BYTES, or STREAM_BODY_URL (e.g. a file on nginx). The reads run on the main
// actor (this file's top-level code), or with STREAM_READER=task in a task of their own.
import BenchSupport
import Foundation
import HTTPTransport

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: StreamingBodies BASE_URL throughput|slow|read [BYTES [RUNS]]")
    exit(2)
}
let base = arguments[1]
let bytes = arguments.count > 3 ? Int(arguments[3]) ?? (256 << 20) : (256 << 20)
var configuration = Session.Configuration()
configuration.maxResponseSize = Int64(bytes) + 1  // the download to memory must be allowed it
// STREAM_HTTP2=1: HTTP/2 with prior knowledge (an h2c server, e.g. nginx with `listen … http2`).
if ProcessInfo.processInfo.environment["STREAM_HTTP2"] == "1" { configuration.httpVersion = .http2PriorKnowledge }
let transport = HTTPTransport(session: Session(configuration: configuration))
let bodyURL = ProcessInfo.processInfo.environment["STREAM_BODY_URL"] ?? base + "/bytes/\(bytes)"
let request = HTTPRequest(endpoint: bodyURL, timeout: 600)
_ = transport.send(request: HTTPRequest(endpoint: base + "/json"))  // warm-up

/// Resets VmHWM to the current RSS (Linux: write 5 to /proc/self/clear_refs).
func resetPeak() { try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8) }

@Sendable func seconds(_ elapsed: Duration) -> Double {
    Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func mebibytesPerSecond(_ elapsed: Duration) -> Double { Double(bytes) / 1_048_576 / seconds(elapsed) }

/// Runs `body` (which returns the bytes it got) and gives its rate in MiB/s.
func measure(_ body: () async throws -> Int) async throws -> Double {
    let started = ContinuousClock.now
    let received = try await body()
    guard received == bytes else { throw HTTPTransportError(code: .other, message: "got \(received) of \(bytes) bytes") }
    return mebibytesPerSecond(ContinuousClock.now - started)
}

switch arguments[2] {
case "throughput":
    var memory: [Double] = [], stream: [Double] = [], handler: [Double] = []
    for _ in 0..<3 {
        memory.append(try await measure { try transport.send(request: request).get().body?.count ?? 0 })
        stream.append(try await measure {
            var count = 0
            for try await chunk in try await transport.stream(request).body { count += chunk.count }
            return count
        })
        handler.append(try await measure {
            let counter = Counter()
            _ = try transport.send(request: request.streaming { chunk in counter.add(chunk.count) }).get()
            return counter.total
        })
    }
    func median(_ values: [Double]) -> String { String(format: "%.0f", values.sorted()[values.count / 2]) }
    print("\(bytes >> 20) MiB, median of 3 (MiB/s): download to memory \(median(memory)), "
        + "stream() read as fast as possible \(median(stream)), streaming { } handler \(median(handler))")
case "read":
    // RUNS reads through stream(_:).body, one line each: seconds from the request to the body's
    // end, the bytes, the time to the first chunk (ms), and the process's CPU time over the read
    // (ms, user + system, every thread: the transfer's loop and the reader).
    // STREAM_READER=task: the reader runs in a task of its own (the global executor) instead of
    // on the main actor (this file's top-level code): a reader woken on the main actor is resumed
    // on a pool thread first and then hops to the main queue, two thread wake-ups to one.
    let runs = arguments.count > 4 ? Int(arguments[4]) ?? 1 : 1
    let inTask = ProcessInfo.processInfo.environment["STREAM_READER"] == "task"
    for _ in 0..<runs {
        let read = { @Sendable () async throws -> String in
            let clock = ContinuousClock()
            let cpuBefore = processCPUSeconds()
            let started = clock.now
            var count = 0
            var first: Duration?
            for try await chunk in try await transport.stream(request).body {
                if first == nil { first = clock.now - started }
                count += chunk.count
            }
            let elapsed = clock.now - started
            guard count == bytes else { throw HTTPTransportError(code: .other, message: "got \(count) of \(bytes) bytes") }
            let cpu = processCPUSeconds() - cpuBefore
            return String(format: "%.6f %d %.3f %.1f", seconds(elapsed), count, seconds(first ?? .zero) * 1000, cpu * 1000)
        }
        print(inTask ? try await Task.detached(operation: read).value : try await read())
    }
case "slow":
    // About 64 MiB/s: 2 ms of "work" every 128 KiB, far slower than the local server sends. The
    // baseline is taken after a 1 MiB stream was read (the session's loop thread, the task pool
    // and the handle's receive buffer exist by then: what the slow stream holds is its own), unless
    // SLOW_WARMUP=none (then the loop thread's and the pool's start count too).
    if ProcessInfo.processInfo.environment["SLOW_WARMUP"] != "none" {
        var warm = HTTPRequest(endpoint: base + "/bytes/\(1 << 20)", timeout: 600)
        if ProcessInfo.processInfo.environment["STREAM_BODY_URL"] != nil { warm = request }
        var taken = 0
        for try await chunk in try await transport.stream(warm).body {
            taken += chunk.count
            if taken >= 1 << 20 { break }
        }
    }
    // glibc's malloc_trim(0) (not in the Glibc module): what the warm-up freed leaves the
    // baseline, which then is the memory in use.
    if let trim = dlsym(nil, "malloc_trim") {
        _ = unsafeBitCast(trim, to: (@convention(c) (Int) -> Int32).self)(0)
    }
    resetPeak()
    let baseline = statusKiB("VmRSS")
    let started = ContinuousClock.now
    var count = 0, sinceWork = 0
    for try await chunk in try await transport.stream(request).body {
        count += chunk.count
        sinceWork += chunk.count
        if sinceWork >= 128 << 10 {
            sinceWork = 0
            try await Task.sleep(for: .milliseconds(2))
        }
    }
    let peak = statusKiB("VmHWM")
    print("stream of \(count) bytes read slowly (\(String(format: "%.0f", mebibytesPerSecond(ContinuousClock.now - started))) MiB/s): "
        + "baseline RSS \(baseline) KiB, peak \(peak) KiB, peak above baseline \(String(format: "%.1f", Double(peak - baseline) / 1024)) MiB")
default:
    print("unknown mode")
    exit(2)
}

final class Counter: @unchecked Sendable {
    private var count = 0
    private let lock = NSLock()
    func add(_ bytes: Int) -> Bool { lock.withLock { count += bytes }; return true }
    var total: Int { lock.withLock { count } }
}
