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

if arguments.workload == .threads {
    let warmUp = warmUpCount(arguments)
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<arguments.threads {
            group.addTask { for _ in 0..<warmUp { _ = await send(getRequest) } }
        }
    }
} else {
    for _ in 0..<warmUpCount(arguments) { _ = await send(arguments.workload == .post ? postRequest : getRequest) }
}
markStart()

var operations = 0
var bytes = 0
var seconds = 0.0
switch arguments.workload {
case .get, .post:
    let request = arguments.workload == .post ? postRequest : getRequest
    let start = now()
    for _ in 0..<arguments.count { bytes += await send(request) }
    seconds = now() - start
    operations = arguments.count
case .threads:
    let perThread = arguments.count
    let start = now()
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<arguments.threads {
            group.addTask {
                for _ in 0..<perThread { _ = await send(getRequest) }
            }
        }
    }
    seconds = now() - start
    operations = arguments.threads * perThread
case .download:
    let start = now()
    bytes = await send(HTTPClientRequest(url: arguments.bigURL), expectedSize: arguments.bytes)
    seconds = now() - start
    operations = 1
case .downloadFile:
    FileHandle.standardError.write(Data("download-file is measured for the C baseline and HTTPTransport only\n".utf8))
    exit(2)
}
report(client: "asynchttpclient", arguments, operations: operations, seconds: seconds, bytes: bytes, failures: failures)
