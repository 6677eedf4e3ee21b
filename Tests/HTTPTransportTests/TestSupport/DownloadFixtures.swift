import Foundation
@testable import HTTPTransport
import XCTest

/// What download tests check files with: the server's bodies, hashes, permissions, descriptors.
extension XCTestCase {
    /// The server's deterministic body for /bytes/N and /range/N (byte i is i % 251), or for
    /// /range-shifted/N?shift=K (byte i is (i + K) % 251).
    func pattern(_ count: Int, shift: Int = 0) -> Data {
        let cycle = (0..<251).map { UInt8(($0 + shift) % 251) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 251)
        while bytes.count < count { bytes.append(contentsOf: cycle) }
        return Data(bytes[0..<count])
    }

    /// The SHA-256 of a file's bytes, in lower-case hex (as the server reports it).
    func sha256(of url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [url.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }

    /// `lstat` of a path: what is at the path itself, a link not followed.
    func entry(at path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    /// Whether a path is a regular file (not a link to one).
    func isRegularFile(_ path: String) -> Bool {
        entry(at: path).map { $0.st_mode & S_IFMT == S_IFREG } ?? false
    }

    /// The files this process has open anywhere under `directory` (read from /proc/self/fd).
    func openDescriptors(under directory: URL) throws -> [String] {
        let prefix = directory.resolvingSymlinksInPath().path + "/"
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { name in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)
            return target.flatMap { $0.hasPrefix(prefix) ? $0 : nil }
        }
    }

    /// Writes the resume record the library keeps beside a part file, as an earlier attempt at
    /// `url` with `validator` would have left it.
    func writeResumeRecord(url: String, validator: String, besides destination: URL) throws {
        let record = try XCTUnwrap(ResumeRecord(url: url, validator: validator))
        XCTAssertTrue(record.write(to: destination.path + ".part.validator"))
    }
}
