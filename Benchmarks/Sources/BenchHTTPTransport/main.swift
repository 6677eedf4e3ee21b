// HTTPTransport as a benchmark client: (b) with the default interceptors, (c) with
// `--interceptors 10`: ten no-op request and ten no-op response interceptors added to the
// transport's (the default ClarifyErrorInterceptor stays, so (c) − (b) is the cost of the no-ops);
// (f) and (g) with `--cache memory` or `--cache directory`: the session has an HTTPCache and the
// GETs ask for BASE_URL/cached.json (served with `Cache-Control: max-age=3600`), so after the
// warm-up every GET is a cache hit; any response that is not a hit counts as a failure.
// The fan-out workload (fanout.sh) sends its GETs as async sends in one task group, or with
// `--api requests` as one `send(requests:)`; `--max-transfers N` sets the session's
// `maxConcurrentTransfers` (default: the library's), `--http 1.1` or `--http 2` the HTTP version
// (2: HTTP/2 over TLS by ALPN), `--ca PEM` the root the server's certificate is checked against,
// `--max-host-connections N` the session's `maxConnectionsPerHost`. The get workload with
// `--api loop` sends each GET through the session's transfer loop (`send(requests:)` of one), with
// `--api async` as awaited async sends, one after the other. The threads workload (THREADS PER)
// keeps THREADS GETs in flight: blocking sends on THREADS threads, or with `--api async` THREADS
// tasks awaiting async sends in turn, or with `--api requests` one `send(requests:)` of
// THREADS × PER GETs (give `--max-transfers THREADS`) (throughput.sh).
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
if let limit = arguments.options["max-transfers"].flatMap(Int.init) { configuration.maxConcurrentTransfers = limit }
if let limit = arguments.options["max-host-connections"].flatMap(Int.init) { configuration.maxConnectionsPerHost = limit }
switch arguments.options["http"] {
case nil: break
case "1.1": configuration.httpVersion = .http1_1
case "2": configuration.httpVersion = .automatic  // h2 when the server offers it over TLS
default:
    FileHandle.standardError.write(Data("--http takes 1.1 or 2\n".utf8))
    exit(2)
}
let security = arguments.options["ca"].map { Security(trustedRootCertificates: URL(fileURLWithPath: $0)) } ?? .noEvaluation
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
    session: Session(security: security, configuration: configuration),
    requestInterceptors: [any HTTPRequestInterceptor](repeating: NoOpRequestInterceptor(), count: noOps),
    responseInterceptors: [any HTTPResponseInterceptor](repeating: NoOpResponseInterceptor(), count: noOps) + [ClarifyErrorInterceptor()]
)
let failures = Failures()
let connections = Counter()
let http2Responses = Counter()

/// Sends and checks one request; returns the body size.
@inline(__always)
func check(_ result: HTTPTransport.Result, expectedSize: Int? = nil) -> Int {
    switch result {
    case .success(let response):
        if !response.metrics.connectionReused, response.metrics.cacheStatus != .hit { connections.increment() }
        if response.metrics.httpVersion == "2" { http2Responses.increment() }
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

/// One async send, checked.
@Sendable func sendAsync(_ request: HTTPRequest) async -> Int {
    do throws(HTTPTransportError) {
        return check(.success(response: try await transport.send(request)))
    } catch {
        return check(.failure(error: error))
    }
}

/// The fan-out: `count` GETs in flight at once, as async sends in one task group or as one
/// `send(requests:)` (`--api requests`).
func fanOut(_ count: Int) -> Timed {
    switch arguments.options["api"] ?? "async" {
    case "async":
        return timeFanOutWaiting(count) { await sendAsync(getRequest) }
    case "requests":
        let requests = [any HTTPRequestEnvelope](repeating: getRequest, count: count)
        let start = now()
        let results = transport.send(requests: requests)
        let seconds = now() - start
        return Timed(operations: results.count, bytes: results.reduce(0) { $0 + check($1) }, seconds: seconds)
    default:
        FileHandle.standardError.write(Data("--api takes async or requests\n".utf8))
        exit(2)
    }
}

// Every thread's connection is open before the clock starts (as in the C baseline); the fan-out
// warms up through the API it measures.
if arguments.workload == .fanout {
    _ = fanOut(1)
} else if arguments.options["api"] == "async" || arguments.options["api"] == "requests" {
    // Through the session's transfer loop, whose connections are its multi handle's own: one
    // round with as many in flight as the timed part will have.
    let rounds = arguments.workload == .threads ? 1 : warmUpCount(arguments)
    _ = timeTasksWaiting(arguments.threads, perTask: rounds) { await sendAsync(getRequest) }
} else {
    warmUp(arguments, get: { _ = transport.send(request: getRequest) }, post: { _ = transport.send(request: postRequest) })
}
markStart()
let connectionsAfterWarmUp = connections.total
let http2AfterWarmUp = http2Responses.total

let timed: Timed
switch arguments.workload {
case .get where arguments.options["api"] == "async":
    timed = timeAwaitedWaiting(arguments.count) { await sendAsync(getRequest) }
case .threads where arguments.options["api"] == "async":
    timed = timeTasksWaiting(arguments.threads, perTask: arguments.count) { await sendAsync(getRequest) }
case .threads where arguments.options["api"] == "requests":
    let requests = [any HTTPRequestEnvelope](repeating: getRequest, count: arguments.threads * arguments.count)
    let start = now()
    let results = transport.send(requests: requests)
    let seconds = now() - start
    timed = Timed(operations: results.count, bytes: results.reduce(0) { $0 + check($1) }, seconds: seconds)
case .get where arguments.options["api"] == "loop":
    // Each blocking GET through the session's transfer loop (a fan-out of one), to compare with
    // the blocking send on the calling thread.
    timed = timeSequential(arguments.count) { check(transport.send(requests: [getRequest])[0]) }
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
case .fanout:
    timed = fanOut(arguments.count)
}
report(client: client, arguments, timed, failures: failures,
       extra: ["connections": "\(connections.total - connectionsAfterWarmUp)", "h2_responses": "\(http2Responses.total - http2AfterWarmUp)"])
try? FileManager.default.removeItem(at: cacheDirectory)
