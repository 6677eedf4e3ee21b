// (e) AsyncHTTPClient (swift-server/async-http-client), each request awaited before the next;
// the threads workload runs that many concurrent tasks, each awaiting its requests in turn.
// The shared client on NIO's singleton event loop group (one loop per core it may run on).
// The fan-out workload (fanout.sh) runs its GETs as tasks of one task group; `--pool N` raises
// the HTTP/1 connections per host (default 8), `--http 1.1` keeps to HTTP/1.1 (default: h2 over
// TLS when offered), `--ca PEM` is the root the server's certificate is checked against.
// The command line is BenchSupport's.
import AsyncHTTPClient
import BenchSupport
import Foundation
import NIOCore
import NIOSSL

let arguments = BenchArguments.parse()

/// With `--pool`, `--http` or `--ca`, a client of its own: the shared client's configuration with
/// those changed; nil otherwise.
func makeClient() -> HTTPClient? {
    let options = arguments.options
    guard options["pool"] != nil || options["http"] != nil || options["ca"] != nil else { return nil }
    var configuration = HTTPClient.Configuration.singletonConfiguration
    if let limit = options["pool"].flatMap(Int.init) {
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = limit
    }
    if options["http"] == "1.1" { configuration.httpVersion = .http1Only }
    if let ca = options["ca"] { configuration.tlsConfiguration?.trustRoots = .file(ca) }
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}

let ownClient = makeClient()
let client = ownClient ?? HTTPClient.shared
let failures = Failures()
let http2Responses = Counter()
let timeout = TimeAmount.seconds(600)

/// One request, awaited; returns the body size.
func send(_ request: HTTPClientRequest, expectedSize: Int? = nil) async -> Int {
    do {
        let response = try await client.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 1 << 30)
        let size = body.readableBytes
        if response.version.major == 2 { http2Responses.increment() }
        if response.status != .ok || size == 0 || (expectedSize != nil && size != expectedSize) {
            failures.add("status \(response.status.code), \(size) bytes")
        }
        return size
    } catch {
        failures.add("\(error)")
        return 0
    }
}

let getRequest = HTTPClientRequest(url: arguments.smallURL)
var postRequest = HTTPClientRequest(url: arguments.postURL)
postRequest.method = .POST
postRequest.headers.add(name: "Content-Type", value: "application/json")
postRequest.body = .bytes(ByteBuffer(bytes: Payload.postBody))

await warmUpAwaiting(arguments, get: { _ = await send(getRequest) }, post: { _ = await send(postRequest) })
markStart()
let http2AfterWarmUp = http2Responses.total

let timed: Timed
switch arguments.workload {
case .get:
    timed = await timeAwaited(arguments.count) { await send(getRequest) }
case .post:
    timed = await timeAwaited(arguments.count) { await send(postRequest) }
case .threads:
    timed = await timeTasks(arguments.threads, perTask: arguments.count) { await send(getRequest) }
case .download:
    timed = await timeAwaited(1) { await send(HTTPClientRequest(url: arguments.bigURL), expectedSize: arguments.bytes) }
case .fanout:
    timed = await timeFanOut(arguments.count) { await send(getRequest) }
case .downloadFile:
    FileHandle.standardError.write(Data("download-file is measured for the C baseline and HTTPTransport only\n".utf8))
    exit(2)
}
report(client: "asynchttpclient", arguments, timed, failures: failures,
       extra: ["h2_responses": "\(http2Responses.total - http2AfterWarmUp)"])
if let ownClient {
    do { try await ownClient.shutdown().get() } catch { FileHandle.standardError.write(Data("shutdown: \(error)\n".utf8)) }
}
