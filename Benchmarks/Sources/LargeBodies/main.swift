// Memory of 1 GiB transfers (a download to file, a file upload: the peak resident memory above
// the baseline taken just before the transfer) and cancellation latency. Run through
// Benchmarks/large-bodies.sh. Usage: LargeBodies BASE_URL download|upload|cancel [BYTES]
import BenchSupport
import Foundation
import HTTPTransport

func memoryKiB() -> (current: Int, peak: Int) { (statusKiB("VmRSS"), statusKiB("VmHWM")) }

/// Resets VmHWM to the current RSS (Linux: write 5 to /proc/self/clear_refs).
func resetPeak() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: LargeBodies BASE_URL download|upload|cancel [BYTES]")
    exit(2)
}
let base = arguments[1]
let bytes = arguments.count > 3 ? Int(arguments[3]) ?? (1 << 30) : (1 << 30)
let transport = HTTPTransport()
let work = FileManager.default.temporaryDirectory.appendingPathComponent("large-bodies-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

// Warm up: one small request so libcurl, TLS and the pool are initialised in the baseline.
_ = transport.send(request: HTTPRequest(endpoint: base + "/json"))

switch arguments[2] {
case "download":
    let destination = work.appendingPathComponent("download.bin")
    resetPeak()
    let baseline = memoryKiB()
    let started = Date()
    let result = transport.send(request: HTTPRequest(endpoint: base + "/bytes/\(bytes)", timeout: 600).downloading(to: destination, maxSize: Int64(bytes)))
    let elapsed = Date().timeIntervalSince(started)
    let after = memoryKiB()
    let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? 0
    print("download \(bytes) bytes to file: \(result.isSuccess ? "ok" : "FAILED \(String(describing: result.error))"), file \(size) bytes, "
        + "\(String(format: "%.0f", Double(bytes) / elapsed / 1_048_576)) MiB/s")
    print("baseline RSS \(baseline.current) KiB, peak \(after.peak) KiB, peak above baseline \((after.peak - baseline.current) / 1024) MiB")
case "upload":
    let file = work.appendingPathComponent("upload.bin")
    _ = FileManager.default.createFile(atPath: file.path, contents: nil)
    let handle = try FileHandle(forWritingTo: file)
    try handle.truncate(atOffset: UInt64(bytes))  // sparse: reads as zeros without using disk
    try handle.close()
    resetPeak()
    let baseline = memoryKiB()
    let started = Date()
    let result = transport.send(request: HTTPRequest(httpMethod: .put, endpoint: base + "/upload", timeout: 600).uploading(file: file))
    let elapsed = Date().timeIntervalSince(started)
    let after = memoryKiB()
    let echoed = (try? result.value?.getJSONDictionary())?["size"] as? Int ?? -1
    print("upload \(bytes) bytes from file: \(result.isSuccess ? "ok" : "FAILED \(String(describing: result.error))"), server got \(echoed) bytes, "
        + "\(String(format: "%.0f", Double(bytes) / elapsed / 1_048_576)) MiB/s")
    print("baseline RSS \(baseline.current) KiB, peak \(after.peak) KiB, peak above baseline \((after.peak - baseline.current) / 1024) MiB")
case "cancel":
    var latencies: [Double] = []
    for _ in 0..<10 {
        let cancellation = CancellationHandle()
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let signalled = Flag()
        let control = TransferControl(progress: { progress in
            if progress.bytesReceived > 0, signalled.setOnce() { started.signal() }
            return true
        }, cancellation: cancellation)
        Thread {
            _ = transport.send(request: HTTPRequest(endpoint: base + "/drip?bytes=100000&delay=0.01"), control: control)
            finished.signal()
        }.start()
        started.wait()
        let cancelledAt = Date()
        cancellation.cancel()
        finished.wait()
        latencies.append(Date().timeIntervalSince(cancelledAt) * 1000)
    }
    latencies.sort()
    print("cancel → return latency over 10 downloads: median \(String(format: "%.2f", latencies[5])) ms, max \(String(format: "%.2f", latencies[9])) ms")
default:
    print("unknown mode")
    exit(2)
}

final class Flag: @unchecked Sendable {
    private var set = false
    private let lock = NSLock()
    func setOnce() -> Bool { lock.withLock { defer { set = true }; return !set } }
}
