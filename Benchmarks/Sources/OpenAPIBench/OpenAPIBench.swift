// What openapi.sh's three clients share: the generated client (Generated/, made from openapi.yaml
// by swift-openapi-generator 1.14.3 with openapi-generator-config.yaml) and the two workloads,
// so that the executables differ only in the ClientTransport they pass in.
//
//   CLIENT get      BASE_URL COUNT   COUNT sequential getSmall calls, the JSON body decoded
//   CLIENT download BASE_URL BYTES   one getBig call, its body read as it streams, bytes counted
//
// The result line is BenchSupport's, with the process's CPU time (user + system, warm-up and
// start-up included) as `cpu_seconds`.
//
//     swift-openapi-generator generate openapi.yaml --config openapi-generator-config.yaml --output-directory Generated
import BenchSupport
import Foundation
import OpenAPIRuntime

#if canImport(Glibc)
import Glibc
#endif

/// Runs the workload of the command line with a generated client over `transport` and prints the result line.
public func runOpenAPIBenchmark(client name: String, transport: any ClientTransport) async {
    let arguments = BenchArguments.parse()
    guard let serverURL = URL(string: arguments.baseURL) else {
        FileHandle.standardError.write(Data("\(name): not a URL: \(arguments.baseURL)\n".utf8))
        exit(2)
    }
    let client = Client(serverURL: serverURL, transport: transport)
    let failures = Failures()
    let timed: Timed
    switch arguments.workload {
    case .download:
        markStart()
        let start = now()
        let bytes = await download(client, failures)
        timed = Timed(operations: 1, bytes: bytes, seconds: now() - start)
        if bytes != arguments.bytes { failures.add("\(bytes) bytes, expected \(arguments.bytes)") }
    default:
        for _ in 0..<warmUpCount(arguments) { _ = await getSmall(client, failures) }
        markStart()
        timed = await timeAwaited(arguments.count) { await getSmall(client, failures) }
    }
    report(client: name, arguments, timed, failures: failures,
           extra: ["cpu_seconds": String(format: "%.3f", processCPUSeconds())])
}

/// One getSmall call; returns the length of the decoded name (a body that decoded), 0 on failure.
func getSmall(_ client: Client, _ failures: Failures) async -> Int {
    do {
        let small = try await client.getSmall().ok.body.json
        return small.name.utf8.count
    } catch {
        failures.add("\(error)")
        return 0
    }
}

/// One getBig call, its body counted chunk by chunk as it arrives.
func download(_ client: Client, _ failures: Failures) async -> Int {
    do {
        var bytes = 0
        for try await chunk in try await client.getBig().ok.body.binary {
            bytes += chunk.count
        }
        return bytes
    } catch {
        failures.add("\(error)")
        return 0
    }
}

/// User + system CPU seconds of this process so far.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
