import Foundation
import HTTPTransport
import XCTest

/// Downloads into a directory where someone else may have planted things at the paths a
/// download uses (`<destination>.part`, `<destination>.part.validator`, the destination): links,
/// hard links, FIFOs, directories, files of another user. No planted thing may make the
/// download write or read any other file; the download either succeeds with the right bytes or
/// fails with `.fileIO` naming the problem.
final class DownloadSafetyTests: XCTestCase {
    let transport = HTTPTransport()
    var directory: URL!
    /// A file of the user's that the planted things point at; it must never change.
    var victim: URL!
    let precious = Data("\"precious, must never change\"".utf8)

    override func setUpWithError() throws {
        directory = try temporaryDirectory("download-safety")
        victim = directory.appendingPathComponent("victim.txt")
        try precious.write(to: victim)
    }

    private func part(of destination: URL) -> String { destination.path + ".part" }

    /// A resumable download of /range-cut/`resumedSize` cut after half its body: leaves a part
    /// file and its record, and returns the request that resumes it.
    private func cutDownload(to destination: URL) throws -> HTTPRequest {
        let size = resumedSize
        let request = HTTPRequest(endpoint: server.http + "/range-cut/\(size)?key=\(UUID().uuidString)")
            .downloading(to: destination, resume: true)
        XCTAssertEqual(transport.send(request: request).error?.code, .badResponse)
        XCTAssertEqual(entry(at: part(of: destination))?.st_size, off_t(size / 2))
        return request
    }

    private func plantSymlink(at path: String, to target: URL) throws {
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target.path)
    }

    /// Sends on another thread and waits at most 20 s, so a download that blocks fails the test.
    private func sendWithin20Seconds(_ request: HTTPRequest) throws -> HTTPTransport.Result {
        let outcome = ResultBox()
        let thread = Thread { [transport] in outcome.finish(transport.send(request: request)) }
        thread.start()
        return try XCTUnwrap(outcome.wait(seconds: 20), "the download blocked")
    }

    /// The size of the bodies the resume tests download.
    let resumedSize = 400_000

    /// Cuts a resumable download, lets `plant` change what is at its part path, then resumes it.
    private func resume(afterPlanting plant: (String) throws -> Void) throws -> (destination: URL, result: HTTPTransport.Result) {
        let destination = directory.appendingPathComponent("resumed.bin")
        let request = try cutDownload(to: destination)
        try plant(part(of: destination))
        return (destination, try sendWithin20Seconds(request))
    }

    // MARK: A link at the part file

    func testPlantedPartSymlinkIsReplacedNotFollowed() throws {
        let destination = directory.appendingPathComponent("out.bin")
        try plantSymlink(at: part(of: destination), to: victim)
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/bytes/300000").downloading(to: destination))
        XCTAssertEqual(response.fileURL, destination)
        XCTAssertEqual(try Data(contentsOf: victim), precious)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(300_000))
        XCTAssertTrue(isRegularFile(destination.path))
        XCTAssertNil(entry(at: part(of: destination)))
    }

    func testResumeThroughAPlantedPartSymlinkStartsOverWithoutTouchingItsTarget() throws {
        let (destination, result) = try resume { try plantSymlink(at: $0, to: victim) }
        XCTAssertEqual(result.value?.httpStatus, .ok, "not continued: the part is a link")
        XCTAssertEqual(try Data(contentsOf: victim), precious)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(resumedSize))
        XCTAssertTrue(isRegularFile(destination.path))
    }

    func testHardLinkedPartIsReplacedNotWrittenThrough() throws {
        let destination = directory.appendingPathComponent("out.bin")
        XCTAssertEqual(link(victim.path, part(of: destination)), 0)
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/bytes/300000").downloading(to: destination))
        XCTAssertEqual(try Data(contentsOf: victim), precious)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(300_000))
    }

    func testResumeOfAHardLinkedPartStartsOverWithoutTouchingTheOtherName() throws {
        let (destination, result) = try resume { path in
            XCTAssertEqual(unlink(path), 0)
            XCTAssertEqual(link(victim.path, path), 0)
        }
        XCTAssertEqual(result.value?.httpStatus, .ok, "not continued: the part has two names")
        XCTAssertEqual(try Data(contentsOf: victim), precious)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(resumedSize))
    }

    func testPartOwnedByAnotherUserIsNotContinued() throws {
        // Giving a file to another user needs root; an unprivileged run cannot set this up.
        guard geteuid() == 0 else { throw XCTSkip("chown to another user needs root") }
        let (destination, result) = try resume { XCTAssertEqual(chown($0, 65534, 65534), 0) }
        XCTAssertEqual(result.value?.httpStatus, .ok, "not continued: someone else's file")
        XCTAssertEqual(try Data(contentsOf: destination), pattern(resumedSize))
        XCTAssertEqual(entry(at: destination.path)?.st_uid, geteuid())
    }

    // MARK: Other kinds of file at the part path

    func testFIFOAtThePartPathIsReplacedWithoutBlocking() throws {
        let destination = directory.appendingPathComponent("out.bin")
        XCTAssertEqual(mkfifo(part(of: destination), 0o600), 0)
        let result = try sendWithin20Seconds(HTTPRequest(endpoint: server.http + "/bytes/300000").downloading(to: destination))
        XCTAssertNil(result.error)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(300_000))
    }

    func testResumeWithAFIFOAtThePartPathStartsOverWithoutBlocking() throws {
        let (destination, result) = try resume { path in
            XCTAssertEqual(unlink(path), 0)
            XCTAssertEqual(mkfifo(path, 0o600), 0)
        }
        XCTAssertEqual(result.value?.httpStatus, .ok, result.error?.message ?? "")
        XCTAssertEqual(try Data(contentsOf: destination), pattern(resumedSize))
    }

    func testDirectoryAtThePartPathFailsWithFileIONamingIt() throws {
        let destination = directory.appendingPathComponent("out.bin")
        try Data("old".utf8).write(to: destination)
        try FileManager.default.createDirectory(atPath: part(of: destination), withIntermediateDirectories: false)
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/bytes/3000").downloading(to: destination))
        XCTAssertEqual(result.error?.code, .fileIO)
        let message = result.error?.message ?? ""
        XCTAssertTrue(message.contains(part(of: destination)) && message.contains("directory"), message)
        XCTAssertEqual(try Data(contentsOf: destination), Data("old".utf8))
    }

    func testPartReplacedDuringTheDownloadIsNeitherMovedNorRemoved() throws {
        let destination = directory.appendingPathComponent("out.bin")
        try Data("old".utf8).write(to: destination)
        let partPath = part(of: destination)
        let replaced = Protected(false)
        // Another writer takes the part path while the body streams in.
        let control = TransferControl(progress: { progress in
            if progress.bytesReceived > 0, !replaced.value {
                replaced.value = true
                unlink(partPath)
                XCTAssertTrue(FileManager.default.createFile(atPath: partPath, contents: Data("theirs".utf8)))
            }
            return true
        })
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/drip?bytes=20&delay=0.02")
            .downloading(to: destination), control: control)
        XCTAssertTrue(replaced.value)
        XCTAssertEqual(result.error?.code, .fileIO)
        XCTAssertTrue(result.error?.message.contains("was replaced") ?? false, result.error?.message ?? "")
        XCTAssertEqual(try Data(contentsOf: destination), Data("old".utf8))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: partPath)), Data("theirs".utf8))
    }

    // MARK: A link at the resume record

    func testValidatorSymlinkIsNotReadThrough() throws {
        let destination = directory.appendingPathComponent("echo.json")
        try Data(repeating: 0xEE, count: 1000).write(to: URL(fileURLWithPath: part(of: destination)))
        try plantSymlink(at: part(of: destination) + ".validator", to: victim)
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything").downloading(to: destination, resume: true))
        XCTAssertEqual(response.httpStatus, .ok)
        let echoed = try String(contentsOf: destination, encoding: .utf8)
        XCTAssertFalse(echoed.contains("precious"), "the linked file's content was sent: \(echoed)")
        XCTAssertFalse(echoed.lowercased().contains("if-range"), echoed)
        XCTAssertEqual(try Data(contentsOf: victim), precious)
    }

    func testValidatorSymlinkIsNotWrittenThrough() throws {
        let destination = directory.appendingPathComponent("resumed.bin")
        try plantSymlink(at: part(of: destination) + ".validator", to: victim)
        _ = try cutDownload(to: destination)
        XCTAssertEqual(try Data(contentsOf: victim), precious)
        XCTAssertTrue(isRegularFile(part(of: destination) + ".validator"), "the record replaced the link")
    }

    // MARK: The destination and permissions

    func testDestinationSymlinkIsReplacedNotFollowed() throws {
        let destination = directory.appendingPathComponent("out.bin")
        try plantSymlink(at: destination.path, to: victim)
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/bytes/3000").downloading(to: destination))
        XCTAssertEqual(try Data(contentsOf: victim), precious)
        XCTAssertTrue(isRegularFile(destination.path), "rename replaces the link itself")
        XCTAssertEqual(try Data(contentsOf: destination), pattern(3000))
    }

    func testPartFileAndRecordAreOwnerOnly() throws {
        let destination = directory.appendingPathComponent("resumed.bin")
        _ = try cutDownload(to: destination)
        XCTAssertEqual(entry(at: part(of: destination)).map { $0.st_mode & 0o777 }, 0o600)
        XCTAssertEqual(entry(at: part(of: destination) + ".validator").map { $0.st_mode & 0o777 }, 0o600)
    }

    func testFinishedFileGetsTheUsualPermissions() throws {
        let mask = umask(0o022)
        umask(mask)
        let destination = directory.appendingPathComponent("out.bin")
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/bytes/3000").downloading(to: destination))
        XCTAssertEqual(entry(at: destination.path).map { $0.st_mode & 0o777 }, 0o644 & ~mask)
    }
}
