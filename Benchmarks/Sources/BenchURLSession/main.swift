// (d) URLSession from FoundationNetworking, used synchronously: a semaphore around each
// dataTask, one session shared by all threads, no URL cache. The command line is BenchSupport's.
import BenchSupport
import Foundation
import FoundationNetworking

let arguments = BenchArguments.parse()
let configuration = URLSessionConfiguration.default
configuration.urlCache = nil
configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
configuration.timeoutIntervalForRequest = 600
configuration.timeoutIntervalForResource = 600
configuration.httpMaximumConnectionsPerHost = max(6, arguments.threads)
let session = URLSession(configuration: configuration)
let failures = Failures()

final class Box: @unchecked Sendable {
    var data: Data?
    var response: URLResponse?
    var error: Error?
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
    let status = (box.response as? HTTPURLResponse)?.statusCode ?? 0
    let size = box.data?.count ?? 0
    if status != 200 || size == 0 || (expectedSize != nil && size != expectedSize) {
        failures.add("status \(status), \(size) bytes")
    }
    return size
}

let getRequest = URLRequest(url: URL(string: arguments.smallURL)!)
var postRequest = URLRequest(url: URL(string: arguments.postURL)!)
postRequest.httpMethod = "POST"
postRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
postRequest.httpBody = Payload.postBody

if arguments.workload == .threads {
    let warmUp = warmUpCount(arguments)
    _ = runOnThreads(arguments.threads) { _ in for _ in 0..<warmUp { _ = send(getRequest) } }
} else {
    for _ in 0..<warmUpCount(arguments) { _ = send(arguments.workload == .post ? postRequest : getRequest) }
}
markStart()

var operations = 0
var bytes = 0
var seconds = 0.0
switch arguments.workload {
case .get, .post:
    let request = arguments.workload == .post ? postRequest : getRequest
    let start = now()
    for _ in 0..<arguments.count { bytes += send(request) }
    seconds = now() - start
    operations = arguments.count
case .threads:
    let perThread = arguments.count
    seconds = runOnThreads(arguments.threads) { _ in
        for _ in 0..<perThread { _ = send(getRequest) }
    }
    operations = arguments.threads * perThread
case .download:
    let start = now()
    bytes = send(URLRequest(url: URL(string: arguments.bigURL)!), expectedSize: arguments.bytes)
    seconds = now() - start
    operations = 1
case .downloadFile:
    FileHandle.standardError.write(Data("download-file is measured for the C baseline and HTTPTransport only\n".utf8))
    exit(2)
}
report(client: "urlsession", arguments, operations: operations, seconds: seconds, bytes: bytes, failures: failures)
