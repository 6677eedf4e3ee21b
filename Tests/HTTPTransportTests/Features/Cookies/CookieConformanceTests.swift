import Foundation
import XCTest
@testable import HTTPTransport

/// The IETF http-state cookie suite, vendored in `Tests/Conformance/http-state/` (with its
/// licence and attribution).
final class CookieConformanceTests: XCTestCase {
    private struct ParserCase: Decodable {
        struct Cookie: Decodable, Equatable { var name: String; var value: String }
        var test: String
        var received: [String]
        var sent: [Cookie]
        var sentTo: String?
        enum CodingKeys: String, CodingKey { case test, received, sent, sentTo = "sent-to" }
    }

    private struct DateCase: Decodable {
        var test: String
        var expected: String?
    }

    /// The clock the suite's expiry dates were chosen for: 2012-01-01T00:00:00Z.
    private static let suiteDate = Date(timeIntervalSince1970: 1_325_376_000)
    private static let origin = "http://home.example.org:8888/"

    func testEveryEnabledParserCaseSendsTheExpectedCookies() throws {
        let cases = try Self.load([ParserCase].self, from: "parser.json")
        let enabled = cases.filter { !$0.test.hasPrefix("DISABLED_") }
        XCTAssertEqual(cases.count, 222)
        var failures: [String] = []
        for testCase in enabled {
            let sent = try Self.run(testCase)
            if sent != testCase.sent {
                failures.append(testCase.test)
                XCTFail("\(testCase.test): received \(testCase.received) sent \(sent), expected \(testCase.sent)")
            }
        }
        print("http-state parser.json: \(enabled.count - failures.count)/\(enabled.count) enabled cases passed")
        for disabled in cases where disabled.test.hasPrefix("DISABLED_") {
            let passes = (try? Self.run(disabled)) == disabled.sent
            print("http-state parser.json: \(disabled.test) (not required) \(passes ? "passes" : "fails")")
        }
        XCTAssertEqual(failures, [])
    }

    func testCookieDateExamplesParseToTheExpectedDates() throws {
        try checkDates(in: "dates-examples.json", expectedCount: 15)
    }

    func testCookieDateBSDExamplesParseToTheExpectedDates() throws {
        try checkDates(in: "dates-bsd-examples.json", expectedCount: 55)
    }

    // MARK: - Helpers

    private func checkDates(in file: String, expectedCount: Int) throws {
        let cases = try Self.load([DateCase].self, from: file)
        XCTAssertEqual(cases.count, expectedCount)
        var passed = 0
        for testCase in cases {
            let expected = try testCase.expected.map { text -> Date in
                try XCTUnwrap(Self.httpDate(text), "bad expected date \(text)")
            }
            let parsed = CookieDateParser.parse(testCase.test)
            if parsed == expected {
                passed += 1
            } else {
                XCTFail("\(file): \(testCase.test.debugDescription) parsed to \(String(describing: parsed)), expected \(String(describing: expected))")
            }
        }
        print("http-state \(file): \(passed)/\(cases.count) passed")
    }

    /// Stores the case's headers as the test server's response, then reads what the next request sends.
    private static func run(_ testCase: ParserCase) throws -> [ParserCase.Cookie] {
        let storage = CookieStorage(now: { suiteDate })
        let query = testCase.test.lowercased().replacingOccurrences(of: "_", with: "-")
        let setURL = try XCTUnwrap(URL(string: origin + "cookie-parser?" + query))
        storage.store(setCookieHeaders: testCase.received, for: setURL)
        let target = testCase.sentTo ?? "/cookie-parser-result?" + query
        let sendURL = try XCTUnwrap(URL(string: target, relativeTo: URL(string: origin))?.absoluteURL)
        return storage.cookies(for: sendURL).map { ParserCase.Cookie(name: $0.name, value: $0.value) }
    }

    /// Parses `Wed, 09 Dec 2009 16:27:23 GMT` (the weekday is not checked).
    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "dd MMM yyyy HH:mm:ss 'GMT'"
        guard let comma = text.firstIndex(of: ",") else { return nil }
        return formatter.date(from: text[text.index(after: comma)...].trimmingCharacters(in: .whitespaces))
    }

    /// Decodes a suite file; `dates-bsd-examples.json` starts with a `//` licence comment.
    private static func load<T: Decodable>(_ type: T.Type, from name: String) throws -> T {
        let directory = CookieTestSupport.conformanceDirectory
        let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        let json = text.firstIndex(of: "[").map { String(text[$0...]) } ?? text
        return try JSONDecoder().decode(type, from: Data(json.utf8))
    }
}

/// Helpers shared by the cookie tests.
enum CookieTestSupport {
    /// `Tests/Conformance/http-state`, found from the repository's root.
    static let conformanceDirectory = TestServer.repositoryRoot.appendingPathComponent("Tests/Conformance/http-state")
}

/// A clock tests can move; `now` is what `CookieStorage(now:)` takes.
final class CookieTestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = start }

    var date: Date { lock.withLock { current } }

    var now: @Sendable () -> Date { { self.date } }

    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}

/// A counter several threads may bump.
final class CookieTestCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func increment() { lock.withLock { count += 1 } }
}
