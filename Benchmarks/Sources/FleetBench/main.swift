// fleet.sh's client. Two modes:
//   FleetBench latency URL REDIS_URL COUNT
//     COUNT blocking GETs of URL through a session with HostLimits (a rate too high to wait for),
//     in rounds alternating between a session without shared state and one whose state is in
//     Redis; prints wall and CPU microseconds per send for each, and one store round trip alone.
//   FleetBench outage URL REDIS_URL COUNT
//     COUNT GETs through a session whose state is in REDIS_URL (which fleet.sh has frozen or
//     stopped): mean and longest wall microseconds per send.
//   FleetBench recovery REDIS_URL SECONDS
//     asks a store every 10 ms until it answers (fleet.sh restarts Redis meanwhile); prints the
//     wall-clock time of the first answer.
//   FleetBench worker URL REDIS_URL RATE SECONDS
//     blocking GETs of URL for SECONDS through HostLimits(requestsPerSecond: RATE, burst: 1)
//     shared through REDIS_URL ("none": not shared); prints how many it sent.
import Foundation
import HTTPTransport
import HTTPTransportRedis

#if canImport(Glibc)
import Glibc
#endif

func seconds(_ clock: clockid_t) -> Double {
    var spec = timespec()
    clock_gettime(clock, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func transport(rate: Double, burst: Int, redis: String) throws -> HTTPTransport {
    var configuration = Session.Configuration()
    configuration.hostLimits = HostLimits(requestsPerSecond: rate, burst: burst)
    if redis != "none", let url = URL(string: redis) {
        configuration.sharedState = try RedisSharedState(url: url, keyPrefix: "fleet-bench-\(getpid())", timeout: 0.05)
    }
    return HTTPTransport(session: Session(configuration: configuration))
}

/// Wall and CPU seconds of `count` sends.
func measure(_ transport: HTTPTransport, _ url: String, _ count: Int) -> (wall: Double, cpu: Double) {
    let (wall, cpu) = (seconds(CLOCK_MONOTONIC), seconds(CLOCK_PROCESS_CPUTIME_ID))
    for _ in 0..<count {
        guard transport.send(request: HTTPRequest(endpoint: url)).isSuccess else { fatalError("a send failed") }
    }
    return (seconds(CLOCK_MONOTONIC) - wall, seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu)
}

func latency(_ url: String, _ redis: String, _ count: Int) throws {
    let plain = try transport(rate: 1e9, burst: 1_000_000, redis: "none")
    let shared = try transport(rate: 1e9, burst: 1_000_000, redis: redis)
    _ = measure(plain, url, 200)
    _ = measure(shared, url, 200)
    var totals = (plain: (wall: 0.0, cpu: 0.0), shared: (wall: 0.0, cpu: 0.0))
    let rounds = 10
    for _ in 0..<rounds {
        let a = measure(plain, url, count / rounds)
        let b = measure(shared, url, count / rounds)
        totals.plain = (totals.plain.wall + a.wall, totals.plain.cpu + a.cpu)
        totals.shared = (totals.shared.wall + b.wall, totals.shared.cpu + b.cpu)
    }
    guard let redisURL = URL(string: redis) else { fatalError("not a URL: \(redis)") }
    let store = try RedisSharedState(url: redisURL, keyPrefix: "fleet-bench-store-\(getpid())")
    let limits = HostLimits(requestsPerSecond: 1e9, burst: 1_000_000)
    let start = seconds(CLOCK_MONOTONIC)
    for _ in 0..<count { _ = store.reserveTurn(origin: "http://bench:80", limits: limits, within: 1) }
    let roundTrip = (seconds(CLOCK_MONOTONIC) - start) / Double(count) * 1e6
    let sends = Double(rounds * (count / rounds))
    func micros(_ value: Double) -> String { String(format: "%.1f", value / sends * 1e6) }
    print("latency plain_wall_us=\(micros(totals.plain.wall)) shared_wall_us=\(micros(totals.shared.wall)) "
        + "plain_cpu_us=\(micros(totals.plain.cpu)) shared_cpu_us=\(micros(totals.shared.cpu)) "
        + "round_trip_us=\(String(format: "%.1f", roundTrip))")
}

func outage(_ url: String, _ redis: String, _ count: Int) throws {
    let shared = try transport(rate: 1e9, burst: 1_000_000, redis: redis)
    var (total, longest) = (0.0, 0.0)
    for _ in 0..<count {
        let took = measure(shared, url, 1).wall
        total += took
        longest = max(longest, took)
    }
    print(String(format: "outage mean_us=%.1f max_us=%.1f", total / Double(count) * 1e6, longest * 1e6))
}

func recovery(_ redis: String, _ limit: Double) throws {
    guard let url = URL(string: redis) else { fatalError("not a URL: \(redis)") }
    let store = try RedisSharedState(url: url, keyPrefix: "fleet-bench-recovery")
    let limits = HostLimits(requestsPerSecond: 1e9, burst: 1_000_000)
    print("recovery asking")
    fflush(nil)
    let end = seconds(CLOCK_MONOTONIC) + limit
    while seconds(CLOCK_MONOTONIC) < end {
        if store.reserveTurn(origin: "http://bench:80", limits: limits, within: 1) != nil {
            print(String(format: "recovery answered_at=%.3f", Date().timeIntervalSince1970))
            return
        }
        usleep(10_000)
    }
    print("recovery answered_at=never")
}

func worker(_ url: String, _ redis: String, _ rate: Double, _ duration: Double) throws {
    var configuration = Session.Configuration()
    configuration.hostLimits = HostLimits(requestsPerSecond: rate, burst: 1)
    if redis != "none", let shared = URL(string: redis) {
        configuration.sharedState = try RedisSharedState(url: shared, keyPrefix: "fleet-bench-workers")
    }
    let transport = HTTPTransport(session: Session(configuration: configuration))
    let end = seconds(CLOCK_MONOTONIC) + duration
    var sent = 0
    while seconds(CLOCK_MONOTONIC) < end {
        var request = HTTPRequest(endpoint: url)
        request.timeout = max(0.01, end - seconds(CLOCK_MONOTONIC))
        if transport.send(request: request).isSuccess { sent += 1 }
    }
    print("worker sent=\(sent)")
}

let arguments = CommandLine.arguments
switch (arguments.count > 1 ? arguments[1] : "", arguments.count) {
case ("latency", 5):
    try latency(arguments[2], arguments[3], Int(arguments[4]) ?? 5_000)
case ("outage", 5):
    try outage(arguments[2], arguments[3], Int(arguments[4]) ?? 200)
case ("recovery", 4):
    try recovery(arguments[2], Double(arguments[3]) ?? 10)
case ("worker", 6):
    try worker(arguments[2], arguments[3], Double(arguments[4]) ?? 20, Double(arguments[5]) ?? 10)
default:
    FileHandle.standardError.write(Data("usage: FleetBench latency|outage URL REDIS_URL COUNT | recovery REDIS_URL SECONDS | worker URL REDIS_URL RATE SECONDS\n".utf8))
    exit(2)
}
