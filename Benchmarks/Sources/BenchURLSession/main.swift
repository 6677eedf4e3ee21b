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
case .downloadFile:
    FileHandle.standardError.write(Data("download-file is measured for the C baseline and HTTPTransport only\n".utf8))
    exit(2)
}
report(client: "urlsession", arguments, timed, failures: failures)
