import Foundation
import HTTPTransport
import XCTest

/// Two processes share one cache directory: this test process and a copy of the test binary
/// that runs this same test in its child role (told so by an environment variable). Both store
/// and read at once while eviction runs in both; then each must find the other's last entry.
/// Responses come from a `StubEngine` (no server in the child), each URL always with the same
/// body, so any wrong or torn body is seen.
final class CacheProcessTests: XCTestCase {
    private static let childVariable = "HTTPTRANSPORT_CACHE_TEST_CHILD_DIRECTORY"
    /// Small enough that both processes evict while the other writes.
    private static let maxBytes: Int64 = 256 * 1024

    func testTwoProcessesShareOneDirectory() throws {
        if let directory = ProcessInfo.processInfo.environment[Self.childVariable] {
            try runChild(directory: URL(fileURLWithPath: directory))
            return
        }
        let directory = try temporaryCacheDirectory()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["HTTPTransportTests.CacheProcessTests/testTwoProcessesShareOneDirectory"]
        child.environment = ProcessInfo.processInfo.environment.merging([Self.childVariable: directory.path]) { $1 }
        let toChild = Pipe()
        let fromChild = Pipe()
        child.standardInput = toChild
        child.standardOutput = fromChild
        child.standardError = fromChild
        try child.run()

        let transport = Self.transport(directory)
        Self.stress(transport, own: "parent", other: "child")
        // Both are done stressing before the last entries are written, so none evicts the other's.
        var output = Self.readUntil(Self.stressedLine, from: fromChild.fileHandleForReading)
        try Self.store(transport, Self.url("parent", "last"))
        toChild.fileHandleForWriting.write(Data("go\n".utf8))
        output += String(decoding: fromChild.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 0, "the child failed:\n\(output.suffix(4000))")

        try Self.assertStored(transport, Self.url("child", "last"))
        let total = cacheEntryFiles(in: directory)
            .reduce(0) { $0 + ((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }
        // Each process rescans after writing a quarter of the limit, so two may overshoot by that much each.
        XCTAssertLessThanOrEqual(Int64(total), Self.maxBytes * 2)
    }

    private static let stressedLine = "cache-test-child: stressed"

    private func runChild(directory: URL) throws {
        let transport = Self.transport(directory)
        Self.stress(transport, own: "child", other: "parent")
        FileHandle.standardOutput.write(Data("\n\(Self.stressedLine)\n".utf8))
        _ = FileHandle.standardInput.readData(ofLength: 3)
        try Self.store(transport, Self.url("child", "last"))
        try Self.assertStored(transport, Self.url("parent", "last"))
    }

    /// The child's output up to and including `line` (or to its end, if it never says it).
    private static func readUntil(_ line: String, from handle: FileHandle) -> String {
        var output = Data()
        while !String(decoding: output, as: UTF8.self).contains(line) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            output.append(chunk)
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: The work of both roles

    private static func transport(_ directory: URL) -> HTTPTransport {
        let engine = StubEngine { request in
            RawResponse(request: request, statusCode: .ok, headers: ["Cache-Control": "max-age=600"],
                        data: body(for: request.url.absoluteString))
        }
        var configuration = Session.Configuration()
        configuration.cache = HTTPCache(directory: directory, maxBytes: maxBytes)
        return HTTPTransport(session: Session(configuration: configuration, engine: engine))
    }

    /// The one body a URL ever has: its text, then 4,000 bytes that depend on it.
    private static func body(for url: String) -> Data {
        let seed = url.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) % 251 }
        return Data((url + "\n").utf8) + Data((0..<4000).map { UInt8(($0 + seed) % 251) })
    }

    private static func url(_ owner: String, _ name: String) -> String { "http://cache.test/\(owner)/\(name)" }

    /// Writes its own and shared URLs and reads both processes' URLs from the cache only,
    /// checking every body it gets.
    private static func stress(_ transport: HTTPTransport, own: String, other: String) {
        let problems = Protected<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for round in 0..<60 {
                let name = "\(round % 40)"
                for target in [url(own, "\(thread)-\(name)"), url("shared", name)] {
                    if let error = transport.send(request: HTTPRequest(endpoint: target)).error {
                        problems.withLock { $0.append("\(error)") }
                    }
                }
                for target in [url(other, "\((thread + 1) % 4)-\(name)"), url("shared", "\((round + 7) % 40)")] {
                    let result = transport.send(request: HTTPRequest(endpoint: target)
                        .with(header: "Cache-Control", value: "only-if-cached"))
                    switch result {
                    case .success(let response) where response.body != body(for: target):
                        problems.withLock { $0.append("wrong body for \(target)") }
                    case .failure(let error) where error.httpStatusCode != .gatewayTimeout:
                        problems.withLock { $0.append("\(error)") }
                    default:
                        break
                    }
                }
            }
        }
        XCTAssertEqual(problems.value, [])
    }

    private static func store(_ transport: HTTPTransport, _ target: String) throws {
        XCTAssertEqual(try transport.send(request: HTTPRequest(endpoint: target)).get().metrics.cacheStatus, .miss)
    }

    private static func assertStored(_ transport: HTTPTransport, _ target: String) throws {
        let response = try transport.send(request: HTTPRequest(endpoint: target)
            .with(header: "Cache-Control", value: "only-if-cached")).get()
        XCTAssertEqual(response.metrics.cacheStatus, .hit)
        XCTAssertEqual(response.body, body(for: target))
    }
}
