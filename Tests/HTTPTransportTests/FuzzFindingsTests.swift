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
}
