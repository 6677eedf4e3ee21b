import Foundation
import HTTPTransport
import XCTest

/// One source of truth for a transfer's options (issue 13.1): a handle reused for a long,
/// mixed sequence of sends must configure each transfer exactly as a brand-new transport does.
///
/// One transport keeps a single handle (`maxIdleHandles = 1`, sends in sequence) and sends a
/// seeded pseudo-random sequence; each request is also sent on a brand-new transport with the
/// same session settings, and the two outcomes (what the echo route received, or the failure)
/// must be equal. The mix covers methods with and without bodies (copied, streamed, empty,
/// files, multipart, over 1 MiB), downloads to a file, progress and cancellation handles,
/// headers added, dropped and empty, time-outs that must or must not fire, statuses, and TLS
/// with per-host pins, all in one session so that the pin options change from one transfer to
/// the next on the same handle: `localhost` pinned by certificate digest (right: the handshake
/// check), `127.0.0.1` (the same certificate) pinned by a wrong public key, and `other.example`
/// (the `https_otherhost` listener, another certificate, through `resolveOverrides`) unpinned,
/// where a handshake check left over from `localhost` would fail.
///
/// What this cannot cover: options fixed per session (proxy, HTTP version, trust store, client
/// certificate, `.disable`d verification when no second name is at hand) never change on a
/// handle, so a pinned and an unpinned session share nothing to compare; the Python server
/// speaks HTTP/1.1 only.
final class TransferOptionsEquivalenceTests: XCTestCase {
    static let seed: UInt64 = 0x5EED_1301
    static let steps = 200

    private var directory: URL!
    private var security: Security!
    private var configuration = Session.Configuration()

    override func setUpWithError() throws {
        directory = try temporaryDirectory("hop")
        let rightDigest = try certificateFingerprint("leaf", "sha256")
        let wrongKey = try certificateFingerprint("otherhost", "spki_sha256_base64")  // not the leaf's key
        security = trustingTestCA(pins: [
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: rightDigest)),
            TrustPolicyManager.Certificate(host: "127.0.0.1", fingerprint: .publicKey(fingerprint: wrongKey)),
        ])
        configuration.maxIdleHandles = 1
        configuration.resolveOverrides = ["other.example:\(server.ports["https_otherhost"] ?? 0)": "127.0.0.1"]
    }

    func testAReusedHandleConfiguresEveryTransferAsAFreshTransportDoes() throws {
        let reused = HTTPTransport(session: Session(security: security, configuration: configuration))
        var generator = SeededGenerator(seed: Self.seed)
        let files = try uploadFiles(using: &generator)
        var mismatches: [String] = []
        var reusedConnections = 0
        var kinds: Set<String> = []
        for index in 0..<Self.steps {
            for step in ProbeStep.random(index, files: files, server: server, using: &generator) {
                kinds.insert(String(step.summary.prefix { $0.isLetter || $0.isNumber }))
                let scratch = directory.appendingPathComponent("\(index)-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
                let onReused = step.send(reused, scratch.appendingPathComponent("reused"))
                let fresh = HTTPTransport(session: Session(security: security, configuration: configuration))
                let onFresh = step.send(fresh, scratch.appendingPathComponent("fresh"))
                if onReused.result.value?.metrics.connectionReused == true { reusedConnections += 1 }
                if onReused.outcome != onFresh.outcome {
                    mismatches.append("step \(index) \(step.summary):\nreused: \(onReused.outcome)\nfresh: \(onFresh.outcome)")
                }
            }
        }
        XCTAssertEqual(mismatches, [], "seed \(Self.seed)")
        // The comparison means something only if the handle (and its connection) really was reused.
        XCTAssertGreaterThan(reusedConnections, Self.steps / 2)
        XCTAssertEqual(kinds, ProbeStep.kindNames, "the sequence must contain every kind of send")
    }

    /// Files to upload: empty, small, over the copied-body limit.
    private func uploadFiles(using generator: inout SeededGenerator) throws -> [URL] {
        try [0, 10, 100_000].map { size in
            let url = directory.appendingPathComponent("upload-\(size).bin")
            try generator.bytes(size).write(to: url)
            return url
        }
    }

    // MARK: The size cap

    func testTheSessionsSizeCapStillAppliesAfterADownloadWithAHigherCap() throws {
        var capped = Session.Configuration()
        capped.maxResponseSize = 1 << 20
        capped.maxIdleHandles = 1
        let tooLarge = HTTPRequest(endpoint: server.http + "/bytes/2000000")
        let fresh = try XCTUnwrap(HTTPTransport(session: Session(configuration: capped)).send(request: tooLarge).error)
        XCTAssertEqual(fresh.code, .responseTooLarge)
        XCTAssertNotNil(fresh.curlCode, "a fresh handle refuses the declared length up front")

        let reused = HTTPTransport(session: Session(configuration: capped))
        let destination = directory.appendingPathComponent("large.bin")
        let download = try sendOK(reused, HTTPRequest(endpoint: server.http + "/bytes/2000000")
            .downloading(to: destination, maxSize: 4 << 20))
        XCTAssertEqual(download.fileURL, destination)
        let error = try XCTUnwrap(reused.send(request: tooLarge).error)
        XCTAssertEqual(error.code, .responseTooLarge)
        XCTAssertEqual(error.curlCode, fresh.curlCode, "the handle kept the download's limit: \(error)")
    }

    // MARK: Accept-Encoding

    func testTheWrittenAcceptEncodingIsWhatLibcurlItselfSends() throws {
        let ours = try receivedHeaders(try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/anything/ours")))
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["--silent", "--show-error", "--compressed", "--noproxy", "*", "--max-time", "20",
                          server.http + "/anything/curl"]
        let output = Pipe()
        curl.standardOutput = output
        try curl.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        XCTAssertEqual(curl.terminationStatus, 0)
        let theirs = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let curlSent = try XCTUnwrap((theirs["headers_dict"] as? [String: String])?["accept-encoding"])
        XCTAssertEqual(ours["accept-encoding"], curlSent)
    }
}

/// One send of the sequence: a description, and how to send it on a transport (`file`: where a
/// download may go).
struct ProbeStep {
    struct Sent {
        var result: HTTPTransport.Result
        var outcome: TransferOutcome
    }

    let summary: String
    let send: (HTTPTransport, _ file: URL) -> Sent
}
