import Foundation
import XCTest
@testable import HTTPTransport

/// What the fuzz targets (`Fuzz/`) found, each kept as the behaviour the input broke. The
/// targets check these properties on arbitrary input; these tests pin the cases that failed.
final class FuzzFindingsTests: XCTestCase {
    // MARK: - suggestedFilename (FuzzContentDisposition)

    private func suggested(_ disposition: String) -> String? {
        let request = RawRequest(url: URL(fileURLWithPath: "/"))
        return HTTPResponse(httpStatus: .ok, headers: ["Content-Disposition": disposition], request: request).suggestedFilename
    }

    func testNameCutToTheLengthLimitDoesNotEndInWhiteSpace() {
        let name = String(repeating: "x", count: 254) + " " + String(repeating: "y", count: 50)
        XCTAssertEqual(suggested("attachment; filename=\"\(name)\""), String(repeating: "x", count: 254))
    }

    func testCombiningMarkAfterASlashDoesNotHideThePathSeparator() throws {
        let name = try XCTUnwrap(suggested("attachment; filename*=UTF-8''..%2F%CC%81etc%2F%CC%81passwd"))
        XCTAssertFalse(name.unicodeScalars.contains("/"), name)
        XCTAssertEqual(name, "\u{301}passwd")
    }

    func testCombiningMarkAfterALeadingDotDoesNotKeepTheDot() {
        XCTAssertEqual(suggested("attachment; filename*=UTF-8''.%CC%81bashrc"), "\u{301}bashrc")
        XCTAssertEqual(suggested("attachment; filename*=UTF-8''-%CC%81rf"), "\u{301}rf")
    }

    func testNameOfOneVeryLongCharacterIsCutBetweenScalarsAndKeepsItsStem() throws {
        // One Character of 401 bytes: cut between Characters, nothing of it fitted and the name
        // was its extension alone, a hidden file.
        let marks = String(repeating: "%CC%81", count: 200)
        let name = try XCTUnwrap(suggested("attachment; filename*=UTF-8''a\(marks).txt"))
        XCTAssertEqual(name, "a" + String(repeating: "\u{301}", count: 125) + ".txt")
        XCTAssertEqual(name.utf8.count, ContentDisposition.maximumNameLength)
    }

    // MARK: - Cookie file (FuzzCookieFile)

    private let clock = CookieTestClock(Date(timeIntervalSince1970: 1_700_000_000))

    private func savedAndLoaded(_ cookies: [HTTPCookie]) throws -> (stored: [HTTPCookie], loaded: [HTTPCookie]) {
        let directory = try temporaryDirectory("fuzz-findings")
        let file = directory.appendingPathComponent("cookies.txt")
        let storage = CookieStorage(file: file, now: clock.now)
        for cookie in cookies { storage.setCookie(cookie) }
        try storage.save()
        return (storage.allCookies, CookieStorage(file: file, now: clock.now).allCookies)
    }

    func testCookieWhoseDomainStartsWithHashIsIgnored() throws {
        // Written as `#comment.example	FALSE	…`, a comment line: it never loaded back.
        let (stored, _) = try savedAndLoaded([HTTPCookie(name: "a", value: "1", domain: "#comment.example",
                                                         expiresDate: clock.date + 60)])
        XCTAssertEqual(stored, [])
    }

    func testCookieWhoseDomainIsNoHostNameIsIgnored() {
        let storage = CookieStorage(now: clock.now)
        for domain in ["..example.org", "example.org..", "exa mple.org", "example\u{1}.org", ".", "..", "#x", ".#x"] {
            storage.setCookie(HTTPCookie(name: "a", value: "1", domain: domain))
        }
        XCTAssertEqual(storage.allCookies, [])
    }

    func testCookieWhosePathHoldsAControlCharacterIsIgnored() {
        let storage = CookieStorage(now: clock.now)
        storage.setCookie(HTTPCookie(name: "a", value: "1", domain: "example.org", path: "/a\u{1}b"))
        XCTAssertEqual(storage.allCookies, [])
    }

    func testHttpOnlyCookieWhoseDomainStartsWithACombiningMarkSurvivesTheFile() throws {
        // `#HttpOnly_` then U+0307: the prefix's last Character is `_̇`, so the line read as a comment.
        let cookie = HTTPCookie(name: "n", value: "v", domain: "\u{307}a", expiresDate: clock.date + 60, isHTTPOnly: true)
        let (stored, loaded) = try savedAndLoaded([cookie])
        XCTAssertEqual(stored.count, 1)
        XCTAssertEqual(loaded, stored)
    }

    func testExpiryAfterTheLatestIsClampedWhenSetByHandAndSurvivesTheFile() throws {
        let far = Date(timeIntervalSince1970: 300_000_000_000)
        let (stored, loaded) = try savedAndLoaded([HTTPCookie(name: "a", value: "1", domain: "example.org", expiresDate: far)])
        XCTAssertEqual(stored.first?.expiresDate, CookieParser.latestExpiry)
        XCTAssertEqual(loaded, stored)
    }

    // MARK: - Set-Cookie (FuzzSetCookie)

    func testGreekQuestionMarkStaysItsOwnBytesAndNeverSplitsACookie() throws {
        // U+037E is canonically equivalent to `;` (Swift's `==` and `contains(";")` say so), but
        // it is the bytes CD BE: pairs split on the `;` byte only, and the Cookie header holds
        // exactly the one `;` between the two cookies. (The fuzz target's own check compared
        // Characters; the library was right.) A `;` before a combining mark still splits.
        let storage = CookieStorage(now: clock.now)
        let url = try XCTUnwrap(URL(string: "https://example.org/"))
        storage.store(setCookieHeaders: ["a\u{37E}b=1\u{37E}2; Secure", "c=3;\u{301}d=4"], for: url)
        let header = try XCTUnwrap(storage.cookieHeader(for: url))
        XCTAssertEqual(Array(header.utf8), Array("a\u{37E}b=1\u{37E}2; c=3".utf8))
        XCTAssertEqual(header.utf8.filter { $0 == UInt8(ascii: ";") }.count, 1)
    }

    // MARK: - Redaction (FuzzRedaction)

    private let redaction = LogRedaction.default

    func testSecretInAFragmentRoutesQueryIsHidden() {
        XCTAssertEqual(redaction.redactedText("https://app.example/#/callback?access_token=abc&state=1"),
                       "https://app.example/#/callback?access_token=<redacted>&state=1")
    }

    func testURLInAQueryPairWithoutAnEqualsSignIsRedacted() {
        XCTAssertEqual(redaction.redactedText("see ?next&https://user:pw@host.example/ now"),
                       "see ?next&https://user:<redacted>@host.example/ now")
    }

    func testURLInTheNameOfAQueryPairIsRedacted() {
        XCTAssertEqual(redaction.redactedText("?bhttps://user:pw@host.example=c"), "?bhttps://user:<redacted>@host.example=c")
    }

    func testValueNestedPastTheDepthLimitIsHiddenWhole() {
        let text = "?i?j=p?/a:=?/-https://user:Secret1@"
        XCTAssertFalse(redaction.redactedText(text).contains("Secret1"), redaction.redactedText(text))
    }

    func testRedactingTwiceChangesNothing() {
        for text in [
            // A placeholder in the user info, then another `@`: the `<` of the placeholder ended the URL.
            "http2://K-TP\u{0}Gps://KEY=@aapi.exEY:$@api.",
            // Percent-encoding read one level deeper than the plain text, past the depth limit.
            "Jhttps:?/KEY:?.com/?sig*-9SY:@a1!e%4Ds:?/KY@Ypi.exa:@a0cf.",
        ] {
            let once = redaction.redactedText(text)
            XCTAssertEqual(redaction.redactedText(once), once, text.debugDescription)
        }
    }

    func testRedactingTwiceChangesNothingWhenPercentEncodingReachesTheDepthLimit() throws {
        // The fuzzer's inputs, invalid UTF-8 included (read as the target reads it, repaired):
        // a `%3F` that decodes to one more level of nesting than the plain reading has.
        for base64 in [
            "JTJGY3I6cXRwc9k/PyMjI2IlM0bobz+b2uhvP5vazLsAi4uUdXI6c3Rwc9k/PyMjIyNtaw==",
            "JTJGLTFzPS4xY3I6cT9wP37ZdHMjIyNiJTNG6G8/m9robz+bPXBsAGVmTG9yczp0cHPZPz8jdGVtc2s=",
        ] {
            let text = String(decoding: try XCTUnwrap(Data(base64Encoded: base64)), as: UTF8.self)
            let once = redaction.redactedText(text)
            XCTAssertEqual(redaction.redactedText(once), once, text.debugDescription)
        }
    }

    func testPasswordWithAnApostropheIsHidden() {
        XCTAssertEqual(redaction.redactedText("Location: http://user:pa'ss@host.example/"),
                       "Location: http://user:<redacted>@host.example/")
        XCTAssertEqual(redaction.redactedURL(URL(string: "http://user:pw@x'y@host.example/")!),
                       "http://user:<redacted>@host.example/")
    }

    /// A fuzz finding (Fuzz/Corpus/FuzzRedaction/found-c4a49a46): a URL's user info runs to its
    /// last `@`, so in a form body a later `a:b@` made the pairs between a "user name", shown.
    func testAUserNameHoldingPairsIsHiddenWithThem() throws {
        let form = "h://EK@ap;sig=abc&Access-Token=Pl4ntedSecretValue&A::@psa=<re"
        let shown = String(decoding: redaction.redactedBody(Data(form.utf8), contentType: "application/x-www-form-urlencoded"),
                           as: UTF8.self)
        XCTAssertFalse(shown.contains("Pl4nted"), shown)
        XCTAssertEqual(redaction.redactedText("x https://a&token=T1:pw@host.example/ y"), "x https://<redacted>@host.example/ y")
        // A plain user name is still shown.
        XCTAssertEqual(redaction.redactedText("https://deploy-bot.2:pw@host.example/"), "https://deploy-bot.2:<redacted>@host.example/")
    }

    // MARK: - Archives (FuzzHTTPArchive)

    /// A fuzz finding (Fuzz/Corpus/FuzzHTTPArchive/found-b2be628d): the more specific redacted
    /// pair took the one sent pair the other needed, and the query no longer matched.
    func testRedactedQueryPairsFindTheirMatchWhateverTheOrder() throws {
        let recorded = try XCTUnwrap(ArchiveURLPattern("https://h.test/p?<redacted>;<redacted>;<redacted>&<redacted>;xy<redacted>"))
        for sent in ["https://h.test/p?a;b;xy1&c;xy2", "https://h.test/p?c;xy2&a;b;xy1"] {
            XCTAssertTrue(recorded.matches(try XCTUnwrap(ArchiveURLPattern(sent))), sent)
        }
        for sent in ["https://h.test/p?a;xy1&c;xy2", "https://h.test/p?a;b;c&d;e", "https://h.test/p?a;b;xy1"] {
            XCTAssertFalse(recorded.matches(try XCTUnwrap(ArchiveURLPattern(sent))), sent)
        }
        // Past the limit of exact matching, still every pair with its own pattern.
        let many = ArchiveURLPattern.exactPatternLimit + 10
        let wide = try XCTUnwrap(ArchiveURLPattern("https://h.test/p?" + (0..<many).map { "k\($0)=<redacted>" }.joined(separator: "&")))
        XCTAssertTrue(wide.matches(try XCTUnwrap(ArchiveURLPattern("https://h.test/p?" + (0..<many).reversed().map { "k\($0)=v" }.joined(separator: "&")))))
        XCTAssertFalse(wide.matches(try XCTUnwrap(ArchiveURLPattern("https://h.test/p?" + (1...many).map { "k\($0)=v" }.joined(separator: "&")))))
    }

    // MARK: - Redirects (FuzzRedirect)

    /// The failure of a send to `https://api.invalid/a` answered with a 302 to `location`.
    private func redirectFailure(to location: String) -> HTTPTransportError? {
        let stub = StubEngine { request in
            RawResponse(request: request, statusCode: .found, headers: ["Location": location])
        }
        return HTTPTransport(session: Session(engine: stub)).send(request: HTTPRequest(endpoint: "https://api.invalid/a")).error
    }

    func testRedirectToAnEmptyHostFailsAsAnUnusableLocation() {
        let error = redirectFailure(to: "http://user:pw@")
        XCTAssertEqual(error?.code, .badResponse)
        XCTAssertFalse(error?.message.contains("pw") ?? true, error?.message ?? "")
    }

    func testRefusedInsecureRedirectDoesNotShowAPasswordHoldingAnApostrophe() {
        // The `'` ended the URL's authority for the redaction, so no user info was found.
        let error = redirectFailure(to: "http://user:Secret1@x'y@plain.invalid/")
        XCTAssertEqual(error?.code, .insecureRedirect)
        XCTAssertFalse(error?.message.contains("Secret1") ?? true, error?.message ?? "")
    }

    // MARK: - Proxy URLs (FuzzProxy)

    private func proxyError(_ url: String) -> HTTPTransportError? {
        do {
            _ = try ProxyURL(Proxy(url))
            return nil
        } catch {
            return error
        }
    }

    func testProxyURLWithACombiningMarkAfterTheAtSignDoesNotShowThePassword() throws {
        // `@` and U+0655 make one Character: no user info was found, and the port shown held it.
        let error = try XCTUnwrap(proxyError("http://user:Secret1@\u{655}proxy.example:3128"))
        XCTAssertEqual(error.code, .invalidURL)
        XCTAssertFalse(error.message.contains("Secret1"), error.message)
    }

    func testProxyURLWithoutASchemeDoesNotShowThePassword() throws {
        let error = try XCTUnwrap(proxyError("user:Secret1@proxy.example:3128"))
        XCTAssertFalse(error.message.contains("Secret1"), error.message)
        XCTAssertTrue(error.message.contains("user:***@proxy.example:3128"), error.message)
    }

    func testProxyTextWithAPasswordBeforeALaterSchemeDoesNotShowThePassword() throws {
        // Only a `scheme://` at the start ends a scheme; the user info ran from a later one.
        let error = try XCTUnwrap(proxyError("user:Secret1@xy:11 socks5h://u:p@proxy.example"))
        XCTAssertFalse(error.message.contains("Secret1"), error.message)
    }

    func testNoProxyTokensAreSplitOnTheCommaEvenBeforeACombiningMark() {
        // `,` and U+0306 make one Character: the two tokens were read as one.
        XCTAssertTrue(NoProxyList("internal.example,\u{306}x").covers(host: "api.internal.example"))
        XCTAssertTrue(NoProxyList("\u{306}x,.example.org").covers(host: "www.example.org"))
    }
}
