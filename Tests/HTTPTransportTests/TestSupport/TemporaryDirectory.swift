import Foundation
import XCTest

extension XCTestCase {
    /// A new, empty directory in the system's temporary directory (`prefix-UUID`), removed with
    /// everything in it when the test ends.
    func temporaryDirectory(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}
