// HTTPTransport as a benchmark client: (b) with the default interceptors, (c) with
// `--interceptors 10`: ten no-op request and ten no-op response interceptors added to the
// transport's (the default ClarifyErrorInterceptor stays, so (c) − (b) is the cost of the no-ops);
// (f) and (g) with `--cache memory` or `--cache directory`: the session has an HTTPCache and the
// GETs ask for BASE_URL/cached.json (served with `Cache-Control: max-age=3600`), so after the
// warm-up every GET is a cache hit; any response that is not a hit counts as a failure.
// The command line is BenchSupport's.
import BenchSupport
import Foundation
import HTTPTransport

struct NoOpRequestInterceptor: HTTPRequestInterceptor {
    func intercept(request: RawRequest) throws -> RawRequest { request }
}

struct NoOpResponseInterceptor: HTTPResponseInterceptor {
    func intercept(response: RawResponse) -> RawResponse { response }
}

let arguments = BenchArguments.parse()
let noOps = Int(arguments.options["interceptors"] ?? "0") ?? 0
let cacheMode = arguments.options["cache"]
let client = cacheMode.map { "httptransport+cache-\($0)" } ?? (noOps > 0 ? "httptransport+\(noOps)" : "httptransport")

var configuration = Session.Configuration()
configuration.maxResponseSize = 1 << 30  // the in-memory download is larger than the 100 MiB default
let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("httptransport-bench-cache-\(getpid())")
switch cacheMode {
case nil: break
case "memory": configuration.cache = HTTPCache()
case "directory": configuration.cache = HTTPCache(directory: cacheDirectory)
default:
    FileHandle.standardError.write(Data("--cache takes memory or directory\n".utf8))
    exit(2)
}
let transport = HTTPTransport(
    session: Session(configuration: configuration),
    requestInterceptors: [any HTTPRequestInterceptor](repeating: NoOpRequestInterceptor(), count: noOps),
    responseInterceptors: [any HTTPResponseInterceptor](repeating: NoOpResponseInterceptor(), count: noOps) + [ClarifyErrorInterceptor()]
)
let failures = Failures()
let connections = Counter()

final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func increment() { lock.lock(); value += 1; lock.unlock() }
    var total: Int { lock.lock(); defer { lock.unlock() }; return value }
}

/// Sends and checks one request; returns the body size.
@inline(__always)
func check(_ result: HTTPTransport.Result, expectedSize: Int? = nil) -> Int {
    switch result {
    case .success(let response):
        if !response.metrics.connectionReused, response.metrics.cacheStatus != .hit { connections.increment() }
        if cacheMode != nil, response.metrics.cacheStatus != .hit { failures.add("not a cache hit") }
        let size = response.body?.count ?? Int(response.metrics.bytesReceived)
        if response.httpStatus != .ok || size == 0 || (expectedSize != nil && size != expectedSize) {
            failures.add("status \(response.httpStatus.rawValue), \(size) bytes")
        }
        return size
    case .failure(let error):
        failures.add("\(error)")
        return 0
    }
}

let getRequest = HTTPRequest(endpoint: cacheMode == nil ? arguments.smallURL : arguments.baseURL + "/cached.json")
let postRequest = DataUploadHTTPRequest(endpoint: arguments.postURL, headers: ["Content-Type": "application/json"],
                                        data: Payload.postBody)

/// The download to a file: timed around the send; the bytes are the file's size afterwards.
func downloadToFile() -> Timed {
    let destination = URL(fileURLWithPath: arguments.path ?? "/tmp/httptransport-bench.bin")
    let request = HTTPRequest(endpoint: arguments.bigURL, timeout: 600).downloading(to: destination)
    let start = now()
    let result = transport.send(request: request)
    let seconds = now() - start
    _ = check(result)
    let bytes = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? 0
    if bytes != arguments.bytes { failures.add("file has \(bytes) bytes, expected \(arguments.bytes)") }
    if result.value?.fileURL != destination { failures.add("fileURL is \(String(describing: result.value?.fileURL))") }
    return Timed(operations: 1, bytes: bytes, seconds: seconds)
}

// Every thread's connection is open before the clock starts (as in the C baseline).
warmUp(arguments, get: { _ = transport.send(request: getRequest) }, post: { _ = transport.send(request: postRequest) })
markStart()
let connectionsAfterWarmUp = connections.total

let timed: Timed
switch arguments.workload {
case .get:
    timed = timeSequential(arguments.count) { check(transport.send(request: getRequest)) }
case .post:
    timed = timeSequential(arguments.count) { check(transport.send(request: postRequest)) }
case .threads:
    timed = timeOnThreads(arguments.threads, perThread: arguments.count) { check(transport.send(request: getRequest)) }
case .download:
    let request = HTTPRequest(endpoint: arguments.bigURL, timeout: 600)
    timed = timeSequential(1) { check(transport.send(request: request), expectedSize: arguments.bytes) }
case .downloadFile:
    timed = downloadToFile()
}
report(client: client, arguments, timed, failures: failures,
       extra: ["connections": "\(connections.total - connectionsAfterWarmUp)"])
try? FileManager.default.removeItem(at: cacheDirectory)
