import Foundation
import HTTPTransport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A process that exits while other threads still send over TLS (issue 20 item 12: a storm of
/// 5,000 threads crashed, once with "corrupted double-linked list", as it ended). OpenSSL's own
/// exit handler (`OPENSSL_cleanup`, registered with `atexit` when OpenSSL is first set up) tore
/// down OpenSSL under those threads; the library sets OpenSSL up without it.
///
/// Made deterministic in a child process (a copy of the test binary running this test in its
/// child role): an exit handler registered before the first session, so it runs after any
/// handler OpenSSL registers later, sends over TLS as a thread still sending would. With
/// OpenSSL torn down that send cannot even create its TLS context.
final class ExitWithTransfersInFlightTests: XCTestCase {
    private static let urlVariable = "HTTPTRANSPORT_EXIT_TEST_URL"
    private static let caVariable = "HTTPTRANSPORT_EXIT_TEST_CA"

    func testTLSStillWorksWhileTheProcessExits() throws {
        if ProcessInfo.processInfo.environment[Self.urlVariable] != nil { Self.runChild() }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["HTTPTransportTests.ExitWithTransfersInFlightTests/testTLSStillWorksWhileTheProcessExits"]
        child.environment = ProcessInfo.processInfo.environment.merging([
            Self.urlVariable: server.https() + "/get",
            Self.caVariable: server.certificates.appendingPathComponent("ca.pem").path,
        ]) { $1 }
        let output = Pipe()
        child.standardOutput = output
        child.standardError = output
        try child.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationReason, .exit, "the child crashed:\n\(text.suffix(4000))")
        XCTAssertEqual(child.terminationStatus, 0, "the send during exit failed:\n\(text.suffix(4000))")
        XCTAssertTrue(text.contains(Self.sentLine), text.suffix(4000).description)
    }

    private static let sentLine = "exit-test-child: sent during exit"

    /// One send to warm everything up, then `exit`; the exit handler sends again and ends the
    /// process with that send's outcome.
    private static func runChild() -> Never {
        atexit {
            let outcome = ExitWithTransfersInFlightTests.send()
            ExitWithTransfersInFlightTests.say(outcome.map { "exit-test-child: the send during exit failed: \($0)" } ?? ExitWithTransfersInFlightTests.sentLine)
            _exit(outcome == nil ? 0 : 1)
        }
        if let failure = send() {
            say("exit-test-child: the first send failed: \(failure)")
            _exit(2)
        }
        exit(0)
    }

    /// A line on standard output, unbuffered (`_exit` flushes nothing).
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data("\n\(line)\n".utf8))
    }

    /// A send over a new session (a new connection and TLS context): `nil` when it succeeded.
    private static func send() -> String? {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment[urlVariable], let ca = environment[caVariable] else { return "no URL" }
        let transport = HTTPTransport(security: Security(trustedRootCertificates: URL(fileURLWithPath: ca)))
        switch transport.send(request: HTTPRequest(endpoint: url)) {
        case .success(let response): return response.httpStatus.rawValue == 200 ? nil : "status \(response.httpStatus.rawValue)"
        case .failure(let error): return error.message
        }
    }
}
