import Foundation
import HTTPTransport
import XCTest

/// Concurrent async GETs over TLS HTTP/2 to a server that answers each after a delay
/// (Tests/Server/h2_delay_server.py, Python's h2 package), counted by the server itself. A cold
/// session gets every send at once, so they reach the transfer loop over several rounds while the
/// first connection's TLS handshake is still under way; more are in flight than one connection
/// takes (libcurl's 100 streams), which libcurl 7.88 met with a new connection per transfer
/// (MultiplexGate). Per-transfer TLS state (a pin check's callback data) must not make the
/// connection unusable for the next transfer either.
final class H2FanOutTests: XCTestCase, TLSFixtures {
    private struct Outcome {
        /// Connections the server accepted, and requests it received.
        var accepted = 0
        var requests = 0
        var versions: [String] = []
        var failures: [HTTPTransportError.Code] = []
        var elapsed = Duration.zero
    }

    func testColdConcurrentSendsShareOneConnectionWhenTheServerAllowsOneHundredStreams() throws {
        let outcome = try fanOut(count: 250, streams: 100, security: caSecurity())
        assertShared(outcome, count: 250)
    }

    func testColdConcurrentSendsShareOneConnectionWhenTheServerAllowsAThousandStreams() throws {
        let outcome = try fanOut(count: 250, streams: 1_000, security: caSecurity())
        assertShared(outcome, count: 250)
    }

    /// Each transfer's pin check has its own callback data (`CURLOPT_SSL_CTX_DATA`): the
    /// connection it opened still takes the other transfers' streams.
    func testColdConcurrentSendsWithACertificatePinShareOneConnection() throws {
        let pin = TrustPolicyManager.Certificate(host: "127.0.0.1", fingerprint: .sha256(fingerprint: try fingerprints("leaf").sha256))
        let outcome = try fanOut(count: 150, streams: 100, security: caSecurity(pins: [pin]))
        assertShared(outcome, count: 150)
    }

    /// A wrong pin fails every send of the burst with `.pinningFailed`, none waits for ever for
    /// the connection it waited to share, and the server gets no request.
    func testColdConcurrentSendsWithAWrongPinAllFailWithoutARequest() throws {
        let pin = TrustPolicyManager.Certificate(host: "127.0.0.1", fingerprint: .sha256(fingerprint: try fingerprints("expired").sha256))
        let outcome = try fanOut(count: 150, streams: 100, security: caSecurity(pins: [pin]))
        XCTAssertEqual(outcome.versions, [])
        XCTAssertEqual(outcome.failures.count, 150)
        XCTAssertEqual(Set(outcome.failures), [.pinningFailed])
        XCTAssertEqual(outcome.requests, 0)
        XCTAssertLessThan(outcome.elapsed, .seconds(60))
    }

    private func assertShared(_ outcome: Outcome, count: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(outcome.failures, [], file: file, line: line)
        XCTAssertEqual(outcome.versions, Array(repeating: "2", count: count), file: file, line: line)
        XCTAssertEqual(outcome.requests, count, "every GET reached the server once", file: file, line: line)
        // The issue's bound (#34): at most 3, whatever the timing; one is what it takes.
        XCTAssertGreaterThanOrEqual(outcome.accepted, 1, file: file, line: line)
        XCTAssertLessThanOrEqual(outcome.accepted, 3, file: file, line: line)
        // Three rounds of 0.2 s at 100 streams in flight; the bound leaves room for sanitizers.
        XCTAssertLessThan(outcome.elapsed, .seconds(60), file: file, line: line)
    }

    /// Starts the server announcing `streams` streams per connection, sends `count` GETs at once
    /// from a new session (each answered after 0.2 s), then stops the server for its counts.
    private func fanOut(count: Int, streams: Int, security: Security) throws -> Outcome {
        let peer = try PeerProcess(name: "h2-delay")
        defer { peer.stop() }
        let script = TestServer.repositoryRoot.appendingPathComponent("Tests/Server/h2_delay_server.py").path
        try peer.start("/usr/bin/env", ["python3", script, peer.path("port"), peer.path("summary.json"), "200",
                                        certificate("leaf-chain.pem").path, certificate("leaf.key").path, "\(streams)"]) {
            Int(peer.read("port")) != nil
        }
        let port = try XCTUnwrap(Int(peer.read("port")))
        var configuration = Session.Configuration()
        configuration.maxConcurrentTransfers = 1_000
        let transport = HTTPTransport(session: Session(security: security, configuration: configuration))
        let versions = Recorder<String>()
        let failures = Recorder<HTTPTransportError.Code>()
        let started = ContinuousClock.now
        let done = DispatchSemaphore(value: 0)
        Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    group.addTask {
                        do throws(HTTPTransportError) {
                            let request = HTTPRequest(endpoint: "https://127.0.0.1:\(port)/item/\(index)", timeout: 50)
                            versions.add(try await transport.send(request).metrics.httpVersion)
                        } catch {
                            failures.add(error.code)
                        }
                    }
                }
            }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 90), .success, "the sends did not end")
        var outcome = Outcome(versions: versions.values, failures: failures.values, elapsed: .now - started)
        // On SIGTERM the server writes what it counted, then exits.
        peer.send(SIGTERM)
        XCTAssertTrue(peer.waitFor("}", in: "summary.json"), "no summary from the server: \(peer.read("output.log"))")
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(peer.read("summary.json").utf8)) as? [String: Int])
        outcome.accepted = summary["accepted"] ?? -1
        outcome.requests = summary["requests"] ?? -1
        return outcome
    }
}
