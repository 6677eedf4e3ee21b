import Foundation
import HTTPTransport
import XCTest

/// `HTTPResponse.suggestedFilename`: the last path component of `Content-Disposition`'s file
/// name, with nothing in it that could hide, move or misuse the file.
final class SuggestedFilenameTests: XCTestCase {
    private func suggested(_ disposition: String) -> String? {
        let request = RawRequest(url: URL(fileURLWithPath: "/"))
        return HTTPResponse(httpStatus: .ok, headers: ["Content-Disposition": disposition], request: request).suggestedFilename
    }

    func testPlainQuotedAndUnquotedNamesAreKept() {
        XCTAssertEqual(suggested(#"attachment; filename="report 2024.pdf""#), "report 2024.pdf")
        XCTAssertEqual(suggested("attachment; filename=data.csv"), "data.csv")
        XCTAssertEqual(suggested(#"attachment; filename="a\"b;c.txt"; size=3"#), #"a"b;c.txt"#)
    }

    func testExtendedNameIsPreferredAndDecoded() {
        XCTAssertEqual(suggested(#"attachment; filename="fallback.txt"; filename*=UTF-8''na%C3%AFve%20r%C3%A9sum%C3%A9.txt"#),
                       "naïve résumé.txt")
        XCTAssertEqual(suggested("attachment; filename*=iso-8859-1'en'%A3%20rates.txt"), "£ rates.txt")
    }

    func testUndecodableExtendedNameFallsBackToThePlainOne() {
        XCTAssertEqual(suggested("attachment; filename*=UTF-8''%FF%FE.txt; filename=plain.txt"), "plain.txt")
        XCTAssertEqual(suggested("attachment; filename*=KOI8-R''x.txt; filename=plain.txt"), "plain.txt")
    }

    func testOnlyTheLastPathComponentIsKept() {
        XCTAssertEqual(suggested("attachment; filename=\"../../etc/passwd\""), "passwd")
        XCTAssertEqual(suggested(#"attachment; filename="..\\..\\x""#), "x")
        XCTAssertEqual(suggested("attachment; filename*=UTF-8''..%2F..%2Fetc%2Fcron.d%2Fjob"), "job")
    }

    func testControlCharactersAreRemoved() {
        XCTAssertEqual(suggested("attachment; filename=\"a\u{0}b.txt\""), "ab.txt")
        XCTAssertEqual(suggested("attachment; filename*=UTF-8''evil%0D%0AX-Injected%3A%201.txt"), "evilX-Injected: 1.txt")
        XCTAssertEqual(suggested("attachment; filename*=UTF-8''a%C2%85b%7F.txt"), "ab.txt")
    }

    func testBidiOverrideAndZeroWidthCharactersAreRemoved() {
        XCTAssertEqual(suggested("attachment; filename*=UTF-8''invoice%E2%80%AEfdp.exe"), "invoicefdp.exe")
        XCTAssertEqual(suggested("attachment; filename*=UTF-8''pay%E2%80%8Bpal.txt"), "paypal.txt")
        XCTAssertEqual(suggested("attachment; filename*=UTF-8''%EF%BB%BFbom.txt"), "bom.txt")
    }

    func testLineAndParagraphSeparatorsAreRemoved() {
        XCTAssertEqual(suggested("attachment; filename*=UTF-8''one%E2%80%A8two%E2%80%A9.txt"), "onetwo.txt")
    }

    func testLeadingDotsAndDashesAreStripped() {
        XCTAssertEqual(suggested("attachment; filename=-rf"), "rf")
        XCTAssertEqual(suggested("attachment; filename=.bashrc"), "bashrc")
        XCTAssertEqual(suggested("attachment; filename=\" .-.-x.tar.gz \""), "x.tar.gz")
        XCTAssertEqual(suggested("attachment; filename*=UTF-8''%E2%80%AE-rf"), "rf", "hidden behind an invisible character")
    }

    func testNothingUsableGivesNil() {
        for disposition in ["attachment", "attachment; filename=", #"attachment; filename="""#, "attachment; filename=.",
                            "attachment; filename=..", "attachment; filename=....", #"attachment; filename="../""#,
                            "attachment; filename*=UTF-8''%E2%80%8B%00", "attachment; filename=-", "inline"] {
            XCTAssertNil(suggested(disposition), disposition)
        }
    }

    func testOverlongNameIsCutKeepingItsExtension() throws {
        let name = String(repeating: "é", count: 300) + ".json"
        let shortened = try XCTUnwrap(suggested("attachment; filename=\"\(name)\""))
        XCTAssertLessThanOrEqual(shortened.utf8.count, 255)
        XCTAssertTrue(shortened.hasSuffix("é.json"), shortened)
    }
}
