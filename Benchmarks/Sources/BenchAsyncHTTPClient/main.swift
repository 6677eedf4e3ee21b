// (e) AsyncHTTPClient (swift-server/async-http-client), each request awaited before the next;
// the threads workload runs that many concurrent tasks, each awaiting its requests in turn.
// The shared client on NIO's singleton event loop group (one loop per core it may run on).
// The command line is BenchSupport's.
import AsyncHTTPClient
import BenchSupport
import Foundation
import NIOCore

let arguments = BenchArguments.parse()
let client = HTTPClient.shared
let failures = Failures()
let timeout = TimeAmount.seconds(600)

/// One request, awaited; returns the body size.
func send(_ request: HTTPClientRequest, expectedSize: Int? = nil) async -> Int {
    do {
        let response = try await client.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 1 << 30)
        let size = body.readableBytes
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
case .downloadFile:
    FileHandle.standardError.write(Data("download-file is measured for the C baseline and HTTPTransport only\n".utf8))
    exit(2)
}
report(client: "asynchttpclient", arguments, timed, failures: failures)
