import Foundation
import HTTPTransport
import XCTest

/// The local test server (Tests/Server/server.py), started once per test run on 127.0.0.1 with
/// freshly generated certificates. It exits by itself when this process closes its stdin.
final class TestServer: @unchecked Sendable {
    static let shared: TestServer = {
        do {
            return try TestServer()
        } catch {
            fatalError("Cannot start the test server: \(error)")
        }
    }()

    let ports: [String: Int]
    let certificates: URL
    private let process: Process
    private let stdin: Pipe

    /// The repository's root, from this file's place (Tests/HTTPTransportTests/TestSupport).
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    private init() throws {
        let serverDirectory = Self.repositoryRoot.appendingPathComponent("Tests/Server")
        certificates = FileManager.default.temporaryDirectory
            .appendingPathComponent("httptransport-certs-\(ProcessInfo.processInfo.processIdentifier)")
        let makeCerts = Process()
        makeCerts.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        makeCerts.arguments = ["python3", serverDirectory.appendingPathComponent("make_certs.py").path, certificates.path]
        let certificatesPath = certificates.path
        TestServer.certificatesToRemove.withLock { $0 = certificatesPath }
        atexit {
            // The generated certificates go with the test process.
            if let path = TestServer.certificatesToRemove.withLock({ $0 }) {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        try makeCerts.run()
        makeCerts.waitUntilExit()
        guard makeCerts.terminationStatus == 0 else { throw ServerError("make_certs.py failed") }

        let peer = try PythonPeerProcess(script: serverDirectory.appendingPathComponent("server.py"),
                                         arguments: ["--certs", certificates.path],
                                         exitedEarly: "server.py exited before printing its ports")
        process = peer.process
        stdin = peer.stdin
        ports = peer.ports
    }

    private static let certificatesToRemove = Protected<String?>(nil)

    struct ServerError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// `http://127.0.0.1:PORT` of the plain listener.
    var http: String { "http://127.0.0.1:\(ports["http"] ?? 0)" }

    /// `https://localhost:PORT` of a TLS listener (`https`, `https_expired`, …).
    func https(_ listener: String = "https", host: String = "localhost") -> String {
        "https://\(host):\(ports[listener] ?? 0)"
    }

    /// A port on which nothing listens (bound and closed at once).
    static func closedPort() -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length)
                return getsockname(descriptor, pointer, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

extension XCTestCase {
    var server: TestServer { TestServer.shared }

    /// Decodes the server's JSON echo in a response body.
    func echo(_ response: HTTPResponse) throws -> [String: Any] {
        let data = try XCTUnwrap(response.body)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Sends and fails the test on a failure result.
    func sendOK(_ transport: HTTPTransport, _ request: some HTTPRequestEnvelope, file: StaticString = #filePath,
                line: UInt = #line) throws -> HTTPResponse {
        switch transport.send(request: request, control: TransferControl()) {
        case .success(let response): return response
        case .failure(let error):
            XCTFail("send failed: \(error)", file: file, line: line)
            throw error
        }
    }
}

/// A Python peer of the test run, started with its stdin a pipe (it exits when this process
/// closes it), whose first line of output is the JSON map of its listener ports.
struct PythonPeerProcess {
    let process: Process
    let stdin: Pipe
    let ports: [String: Int]

    init(script: URL, arguments: [String], exitedEarly: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        var line = Data()
        while true {
            let byte = stdout.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty { throw TestServer.ServerError(exitedEarly) }
            if byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        guard let map = try JSONSerialization.jsonObject(with: line) as? [String: Int] else {
            throw TestServer.ServerError("unexpected banner from \(script.lastPathComponent): \(String(decoding: line, as: UTF8.self))")
        }
        ports = map
    }
}
