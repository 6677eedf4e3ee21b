import Foundation
import HTTPTransport
import HTTPTransportRedis
import XCTest

/// `CircuitBreaker` states shared through a real Redis: a circuit one session opened refuses the
/// others' sends, and one probe goes for the whole fleet.
final class SharedCircuitTests: XCTestCase {
    private static let redis = SharedPeer({ try RedisPeer() }, stop: { $0.stop() })
    override class func tearDown() { redis.stop() }

    private func store(_ prefix: String) throws -> RedisSharedState {
        try RedisSharedState(url: Self.redis.get().url(), keyPrefix: prefix, timeout: 0.5)
    }

    func testACircuitOneSessionOpenedRefusesTheOthersSends() throws {
        let key = UUID().uuidString
        let breaker = CircuitBreaker(failureThreshold: 3, openDuration: 60)
        let first = try fleetTransport(store(key), breaker: breaker)
        let second = try fleetTransport(store(key), breaker: breaker)
        let failing = outageURL(key, "fail=10&status=503")
        for _ in 0..<3 { XCTAssertEqual(first.send(request: HTTPRequest(endpoint: failing)).error?.httpStatusCode, .serviceUnavailable) }
        let error = try XCTUnwrap(second.send(request: HTTPRequest(endpoint: failing)).error)
        XCTAssertEqual(error.code, .circuitOpen)
        XCTAssertTrue(error.message.contains("3 consecutive failures"), error.message)
        XCTAssertEqual(try arrivals(key).statuses.count, 3, "the other session sent nothing")
    }

    func testFailuresOfTwoSessionsCountTogether() throws {
        let key = UUID().uuidString
        let breaker = CircuitBreaker(failureThreshold: 4, openDuration: 60)
        let workers = [try fleetTransport(store(key), breaker: breaker), try fleetTransport(store(key), breaker: breaker)]
        let failing = outageURL(key, "fail=10&status=500")
        for index in 0..<4 { _ = workers[index % 2].send(request: HTTPRequest(endpoint: failing)) }
        XCTAssertEqual(workers[0].send(request: HTTPRequest(endpoint: failing)).error?.code, .circuitOpen)
        XCTAssertEqual(workers[1].send(request: HTTPRequest(endpoint: failing)).error?.code, .circuitOpen)
    }

    func testOneProbeGoesForTheWholeFleetAndItsSuccessClosesTheCircuit() throws {
        let key = UUID().uuidString
        let breaker = CircuitBreaker(failureThreshold: 1, openDuration: 0)
        let stores = [try store(key), try store(key), try store(key)]
        let origin = "http://api.test:80"
        XCTAssertTrue(stores[0].record(origin: origin, breaker: breaker, outcome: .failure(reason: "status 503"), probe: false))
        let answers = stores.map { $0.admit(origin: origin, breaker: breaker, probeLease: 30) }
        XCTAssertEqual(answers.filter { $0 == .probe }.count, 1, "\(answers)")
        XCTAssertEqual(answers.compactMap { if case .probing = $0 { 1 } else { nil } }.count, 2, "\(answers)")
        XCTAssertTrue(stores[1].record(origin: origin, breaker: breaker, outcome: .success, probe: true))
        XCTAssertEqual(stores[2].admit(origin: origin, breaker: breaker, probeLease: 30), .send)
    }

    func testAProbeWhoseSenderVanishedIsGivenAgainAfterItsLease() throws {
        let key = UUID().uuidString
        let breaker = CircuitBreaker(failureThreshold: 1, openDuration: 0)
        let (first, second) = (try store(key), try store(key))
        let origin = "http://api.test:80"
        _ = first.record(origin: origin, breaker: breaker, outcome: .failure(reason: "refused"), probe: false)
        XCTAssertEqual(first.admit(origin: origin, breaker: breaker, probeLease: 0.2), .probe)
        // The first one's process died with its probe; after the lease another may probe.
        let deadline = Date().addingTimeInterval(2)
        var answer = second.admit(origin: origin, breaker: breaker, probeLease: 0.2)
        while answer != .probe, Date() < deadline {
            usleep(50_000)
            answer = second.admit(origin: origin, breaker: breaker, probeLease: 0.2)
        }
        XCTAssertEqual(answer, .probe)
    }

    func testAFailedProbeOpensItAgainForEveryone() throws {
        let key = UUID().uuidString
        let breaker = CircuitBreaker(failureThreshold: 1, openDuration: 60)
        let (first, second) = (try store(key), try store(key))
        let origin = "http://api.test:80"
        _ = first.record(origin: origin, breaker: breaker, outcome: .failure(reason: "refused"), probe: false)
        guard case .open(let since, let until, let reason)? = second.admit(origin: origin, breaker: breaker, probeLease: 1) else {
            return XCTFail("open for the other store")
        }
        XCTAssertEqual(until.timeIntervalSince(since), 60, accuracy: 0.001)
        XCTAssertTrue(reason.contains("refused"), reason)
        _ = second.record(origin: origin, breaker: breaker, outcome: .failure(reason: "again"), probe: true)
        guard case .open(_, _, let again)? = first.admit(origin: origin, breaker: breaker, probeLease: 1) else {
            return XCTFail("open again")
        }
        XCTAssertTrue(again.contains("its probe failed (again)"), again)
    }
}
