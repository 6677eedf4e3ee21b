// 10,000 sequential small GETs through one transport: do they reuse one connection, and does
// memory stay flat? Prints connection count, reuse ratio, and resident memory after 1,000 and
// after 10,000 requests. Usage: ReuseSoak URL [COUNT]
import BenchSupport
import Foundation
import HTTPTransport

func residentKiB() -> (current: Int, peak: Int) { (statusKiB("VmRSS"), statusKiB("VmHWM")) }

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: ReuseSoak URL [COUNT]")
    exit(2)
}
let url = arguments[1]
let count = arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000
let transport = HTTPTransport()
let request = HTTPRequest(endpoint: url)
var localPorts = Set<Int>()
var reused = 0
var failures = 0
var at1000 = (current: 0, peak: 0)
let start = Date()
for index in 1...count {
    switch transport.send(request: request) {
    case .success(let response):
        localPorts.insert(response.metrics.localPort)
        if response.metrics.connectionReused { reused += 1 }
    case .failure(let error):
        failures += 1
        if failures < 5 { print("failure: \(error)") }
    }
    if index == 1000 { at1000 = residentKiB() }
}
let elapsed = Date().timeIntervalSince(start)
let atEnd = residentKiB()
print("requests: \(count), failures: \(failures), elapsed: \(String(format: "%.2f", elapsed)) s, \(Int(Double(count) / elapsed)) req/s")
print("connections used: \(localPorts.count), reused: \(reused) of \(count)")
print("RSS after 1,000: \(at1000.current) KiB (peak \(at1000.peak) KiB)")
print("RSS after \(count): \(atEnd.current) KiB (peak \(atEnd.peak) KiB)")
let growth = at1000.peak > 0 ? Double(atEnd.peak - at1000.peak) / Double(at1000.peak) * 100 : 0
print("peak growth from 1,000 to \(count): \(String(format: "%.1f", growth)) %")
