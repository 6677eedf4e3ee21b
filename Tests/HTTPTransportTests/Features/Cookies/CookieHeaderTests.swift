import Foundation
import XCTest
@testable import HTTPTransport

/// `CookieHeader`: the one rule joining a `Cookie` header, as the storage and the interceptor use it.
final class CookieHeaderTests: XCTestCase {
    func testPairsAreJoinedWithSemicolonAndSpace() {
        XCTAssertEqual(CookieHeader.appending(pairs: [("a", "1"), ("b", "")], to: nil), "a=1; b=")
    }

    func testPairsFollowTheExistingHeaderWithoutADoubledSeparator() {
        XCTAssertEqual(CookieHeader.appending(pairs: [("b", "2")], to: "a=1"), "a=1; b=2")
        XCTAssertEqual(CookieHeader.appending(pairs: [("b", "2")], to: "a=1; "), "a=1; b=2")
        XCTAssertEqual(CookieHeader.appending(pairs: [("b", "2")], to: ""), "b=2")
    }

    func testNothingToJoinIsNil() {
        XCTAssertNil(CookieHeader.appending(pairs: [], to: nil))
        XCTAssertNil(CookieHeader.appending(pairs: [], to: " ; "))
        XCTAssertEqual(CookieHeader.appending(pairs: [], to: "a=1"), "a=1")
    }

    func testInterceptorAppendsTheProvidersCookiesAfterTheRequestsOwn() throws {
        let storage = CookieStorage()
        storage.store(setCookieHeaders: ["a=1", "b=2"], for: URL(string: "http://example.org/")!)
        var request = RawRequest(url: URL(string: "http://example.org/x")!)
        request.setValue("own=0;", forHTTPHeaderField: "Cookie")
        let sent = try AddCookieInterceptor(cookieProvider: storage).intercept(request: request)
        XCTAssertEqual(sent.value(forHTTPHeaderField: "Cookie"), "own=0; a=1; b=2")
        XCTAssertEqual(storage.cookieHeader(for: URL(string: "http://example.org/x")!), "a=1; b=2")
    }

    func testInterceptorLeavesOutAProvidersCookieThatWouldChangeTheHeader() throws {
        struct Provider: CookieProviding {
            func cookies(for url: URL) -> [HTTPCookie] {
                [HTTPCookie(name: "a", value: "1; role=admin"), HTTPCookie(name: "b", value: "2\r\nX: y"), HTTPCookie(name: "c", value: "3")]
            }
        }
        let sent = try AddCookieInterceptor(cookieProvider: Provider()).intercept(request: RawRequest(url: URL(string: "http://h/")!))
        XCTAssertEqual(sent.value(forHTTPHeaderField: "Cookie"), "c=3")
    }
}
