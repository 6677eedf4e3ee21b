import Foundation
import XCTest
@testable import HTTPTransport

/// Persistence: the Netscape cookie file `CookieStorage` loads and `save()` writes, also with curl.
final class CookieFileTests: XCTestCase {
    private var directory: URL!
    private var file: URL { directory.appendingPathComponent("cookies.txt") }
    /// Whole seconds, so expiry dates survive the file's integer seconds unchanged.
    private let clock = CookieTestClock(Date(timeIntervalSince1970: 1_700_000_000))

    override func setUpWithError() throws {
        directory = try temporaryDirectory("cookie-tests")
    }

    private func fileText() throws -> String { try String(contentsOf: file, encoding: .utf8) }

    func testSaveThenLoadRestoresPersistentCookiesWithTheirAttributes() throws {
        let storage = CookieStorage(file: file, now: clock.now)
        storage.store(setCookieHeaders: [
            "host=1; Max-Age=3600; Path=/app",
            "dom=2; Domain=example.org; Max-Age=7200; Path=/",
            "sec=3; Secure; HttpOnly; Max-Age=60",
            "empty=; Max-Age=60",
        ], for: URL(string: "https://www.example.org/app/index")!)
        try storage.save()

        let loaded = CookieStorage(file: file, now: clock.now)
        XCTAssertEqual(loaded.allCookies, storage.allCookies)
        XCTAssertEqual(loaded.cookieHeader(for: URL(string: "https://www.example.org/app/x")!), "host=1; sec=3; empty=; dom=2")
        XCTAssertEqual(loaded.cookieHeader(for: URL(string: "http://example.org/")!), "dom=2")
    }

    func testSessionCookiesAreNotSaved() throws {
        let storage = CookieStorage(file: file, now: clock.now)
        storage.store(setCookieHeaders: ["session=1", "kept=1; Max-Age=60"], for: URL(string: "http://example.org/")!)
        try storage.save()
        XCTAssertFalse(try fileText().contains("session"))
        XCTAssertEqual(CookieStorage(file: file, now: clock.now).allCookies.map(\.name), ["kept"])
    }

    func testFileUsesCurlsLayout() throws {
        let storage = CookieStorage(file: file, now: clock.now)
        storage.store(setCookieHeaders: ["d=1; Domain=example.org; Max-Age=100", "h=2; HttpOnly; Secure; Max-Age=100"],
                      for: URL(string: "https://www.example.org/")!)
        try storage.save()
        let lines = try fileText().split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "# Netscape HTTP Cookie File")
        XCTAssertTrue(lines.contains(".example.org\tTRUE\t/\tFALSE\t1700000100\td\t1"))
        XCTAssertTrue(lines.contains("#HttpOnly_www.example.org\tFALSE\t/\tTRUE\t1700000100\th\t2"))
    }

    func testCorruptLinesAreSkippedAndTheRestLoads() throws {
        let text = [
            "# Netscape HTTP Cookie File",
            "",
            "garbage without tabs",
            "example.org\tFALSE\t/\tFALSE\tnot-a-number\tbad\t1",
            "example.org\tMAYBE\t/\tFALSE\t2000000000\tbad\t1",
            "example.org\tFALSE\t/\tFALSE\t2000000000",
            "example.org\tFALSE\tnoslash\tFALSE\t2000000000\tbad\t1",
            "\tFALSE\t/\tFALSE\t2000000000\tbad\t1",
            "example.org\tFALSE\t/\tFALSE\t2000000000\t\t1",
            "example.org\tFALSE\t/\tFALSE\t-5\tbad\t1",
            "example.org\tFALSE\t/\tFALSE\t2000000000\tgood\t1\textra",
            "example.org\tFALSE\t/\tFALSE\t2000000000\tinjected\t1; admin=1",
            "\u{FFFD}\u{0}\t\t\t\t\t\t",
            "example.org\tFALSE\t/\tFALSE\t2000000000\tgood\t1",
            ".example.org\tTRUE\t/\tTRUE\t2000000000\tnovalue",
            "example.org\tfalse\t/\tfalse\t0\tsession\t3\r",
        ].joined(separator: "\n")
        try Data(text.utf8).write(to: file)
        let cookies = CookieStorage(file: file, now: clock.now).allCookies
        XCTAssertEqual(cookies.map(\.name), ["good", "novalue", "session"])
        XCTAssertEqual(cookies.map(\.value), ["1", "", "3"])
        XCTAssertEqual(cookies.map(\.isSessionCookie), [false, false, true])
    }

    func testBinaryGarbageFileLoadsNothingAndDoesNotCrash() throws {
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: file)
        XCTAssertEqual(CookieStorage(file: file, now: clock.now).allCookies, [])
    }

    func testExpiredCookiesInTheFileAreDropped() throws {
        try Data("example.org\tFALSE\t/\tFALSE\t1000\told\t1\n".utf8).write(to: file)
        XCTAssertEqual(CookieStorage(file: file, now: clock.now).allCookies, [])
    }

    func testMissingFileGivesAnEmptyStore() {
        XCTAssertEqual(CookieStorage(file: file, now: clock.now).allCookies, [])
    }

    func testSaveIsAtomicAndLeavesNoTemporaryFile() throws {
        try Data("old content that must be fully replaced\n".utf8).write(to: file)
        let storage = CookieStorage(file: file, now: clock.now)
        storage.store(setCookieHeaders: (0..<40).map { "c\($0)=v; Max-Age=60" }, for: URL(string: "http://example.org/")!)
        try storage.save()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["cookies.txt"])
        let text = try fileText()
        XCTAssertTrue(text.hasPrefix("# Netscape HTTP Cookie File\n"))
        XCTAssertTrue(text.hasSuffix("\tc39\tv\n"))
        XCTAssertFalse(text.contains("old content"))
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        XCTAssertEqual(permissions, 0o600)
        XCTAssertEqual(CookieStorage(file: file, now: clock.now).allCookies.count, 40)
    }

    func testSaveIntoAMissingDirectoryThrowsAndWritesNothing() {
        let storage = CookieStorage(file: directory.appendingPathComponent("missing/cookies.txt"), now: clock.now)
        storage.setCookie(HTTPCookie(name: "a", value: "1", domain: "example.org", expiresDate: clock.date + 60))
        XCTAssertThrowsError(try storage.save())
    }

    func testCookieWithATabInItsValueIsLeftOutOfTheFile() throws {
        let storage = CookieStorage(file: file, now: clock.now)
        storage.store(setCookieHeaders: ["tab=a\tb; Max-Age=60", "ok=1; Max-Age=60"], for: URL(string: "http://example.org/")!)
        try storage.save()
        XCTAssertEqual(CookieStorage(file: file, now: clock.now).allCookies.map(\.name), ["ok"])
    }

    // MARK: - curl

    /// Saves a file, lets the curl CLI send it to a one-request local server and write its own jar
    /// with `-c`, then loads that jar back.
    func testCurlSendsSavedCookiesAndItsJarLoadsBack() throws {
        guard let curl = Self.executable("curl"), let python = Self.executable("python3") else {
            throw XCTSkip("curl or python3 not installed")
        }
        let storage = CookieStorage(file: file)
        let expiry = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded(.down))
        storage.setCookie(HTTPCookie(name: "plain", value: "1", domain: "127.0.0.1", expiresDate: expiry))
        storage.setCookie(HTTPCookie(name: "hidden", value: "2", domain: "127.0.0.1", expiresDate: expiry, isHTTPOnly: true))
        storage.setCookie(HTTPCookie(name: "elsewhere", value: "3", domain: "127.0.0.1", path: "/other", expiresDate: expiry))
        storage.setCookie(HTTPCookie(name: "secure", value: "4", domain: "127.0.0.1", expiresDate: expiry, isSecure: true))
        try storage.save()

        let server = Process()
        server.executableURL = python
        server.arguments = ["-c", Self.echoServer]
        let serverOutput = Pipe()
        server.standardOutput = serverOutput
        try server.run()
        defer {
            if server.isRunning { server.terminate() }
            server.waitUntilExit()  // reaped: Foundation keeps an unreaped Process (and its pipe) for good
        }
        let portLine = String(decoding: serverOutput.fileHandleForReading.availableData, as: UTF8.self)
        let port = try XCTUnwrap(Int(portLine.trimmingCharacters(in: .whitespacesAndNewlines)), "server said \(portLine)")

        let jar = directory.appendingPathComponent("curl-jar.txt")
        let client = Process()
        client.executableURL = curl
        client.arguments = ["-s", "--max-time", "10", "-b", file.path, "-c", jar.path, "http://127.0.0.1:\(port)/"]
        let clientOutput = Pipe()
        client.standardOutput = clientOutput
        try client.run()
        let sent = String(decoding: clientOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        client.waitUntilExit()
        XCTAssertEqual(client.terminationStatus, 0)
        XCTAssertEqual(Set(sent.components(separatedBy: "; ")), ["plain=1", "hidden=2", "secure=4"])  // 127.0.0.1 counts as secure

        let reloaded = CookieStorage(file: jar)
        XCTAssertEqual(Set(reloaded.allCookies.map(\.name)), ["plain", "hidden", "elsewhere", "secure", "fromserver"])
        XCTAssertEqual(reloaded.allCookies.first { $0.name == "hidden" }?.isHTTPOnly, true)
        XCTAssertEqual(reloaded.allCookies.first { $0.name == "plain" }?.expiresDate, expiry)
        XCTAssertEqual(reloaded.allCookies.first { $0.name == "fromserver" }?.isSessionCookie, true)
        XCTAssertEqual(reloaded.cookieHeader(for: URL(string: "http://127.0.0.1:\(port)/")!).map {
            Set($0.components(separatedBy: "; "))
        }, ["plain=1", "hidden=2", "secure=4", "fromserver=yes"])
    }

    /// A server that prints its port, answers one request with its `Cookie` header as the body
    /// plus a session `Set-Cookie`, and exits (or gives up after 10 s).
    private static let echoServer = """
        import http.server
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = (self.headers.get('Cookie') or '').encode()
                self.send_response(200)
                self.send_header('Set-Cookie', 'fromserver=yes; Path=/')
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
        server.timeout = 10
        print(server.server_port, flush=True)
        server.handle_request()
        """

    private static func executable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
