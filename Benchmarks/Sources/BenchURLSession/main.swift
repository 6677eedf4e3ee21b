// (d) URLSession from FoundationNetworking, used synchronously: a semaphore around each
// dataTask, one session shared by all threads, no URL cache. The fan-out workload (fanout.sh)
// awaits `data(for:)` in one task group, the connections per host raised to its count.
// The command line is BenchSupport's.
import BenchSupport
import Foundation
import FoundationNetworking

let arguments = BenchArguments.parse()
let configuration = URLSessionConfiguration.default
configuration.urlCache = nil
configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
configuration.timeoutIntervalForRequest = 600
configuration.timeoutIntervalForResource = 600
configuration.httpMaximumConnectionsPerHost = arguments.workload == .fanout ? arguments.count : max(6, arguments.threads)
let session = URLSession(configuration: configuration)
let failures = Failures()

final class Box: @unchecked Sendable {
    var data: Data?
    var response: URLResponse?
    var error: Error?
}

/// Checks one response; returns the body size.
func check(data: Data?, response: URLResponse?, expectedSize: Int? = nil) -> Int {
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    let size = data?.count ?? 0
    if status != 200 || size == 0 || (expectedSize != nil && size != expectedSize) {
        failures.add("status \(status), \(size) bytes")
    }
    return size
}

/// One request, waited for; returns the body size.
func send(_ request: URLRequest, expectedSize: Int? = nil) -> Int {
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    let task = session.dataTask(with: request) { data, response, error in
        box.data = data
        box.response = response
        box.error = error
        done.signal()
    }
    task.resume()
    done.wait()
    if let error = box.error {
        failures.add("\(error)")
        return 0
    }
    return check(data: box.data, response: box.response, expectedSize: expectedSize)
}

/// One request, awaited; returns the body size.
func sendAwaiting(_ request: URLRequest) async -> Int {
    do {
        let (data, response) = try await session.data(for: request)
        return check(data: data, response: response)
    } catch {
        failures.add("\(error)")
        return 0
    }
}

let getRequest = URLRequest(url: URL(string: arguments.smallURL)!)
var postRequest = URLRequest(url: URL(string: arguments.postURL)!)
postRequest.httpMethod = "POST"
postRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
postRequest.httpBody = Payload.postBody

warmUp(arguments, get: { _ = send(getRequest) }, post: { _ = send(postRequest) })
markStart()

let timed: Timed
switch arguments.workload {
case .get:
    timed = timeSequential(arguments.count) { send(getRequest) }
case .post:
    timed = timeSequential(arguments.count) { send(postRequest) }
case .threads:
    timed = timeOnThreads(arguments.threads, perThread: arguments.count) { send(getRequest) }
case .download:
    timed = timeSequential(1) { send(URLRequest(url: URL(string: arguments.bigURL)!), expectedSize: arguments.bytes) }
case .fanout:
    timed = timeFanOutWaiting(arguments.count) { await sendAwaiting(getRequest) }
case .downloadFile:
    FileHandle.standardError.write(Data("download-file is measured for the C baseline and HTTPTransport only\n".utf8))
    exit(2)
}
report(client: "urlsession", arguments, timed, failures: failures)
