import Foundation
@testable import HTTPTransport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A cache directory another local user could write to (or owns), or whose salt is not a private
/// file of this user, is refused: a warning is logged and nothing is cached or served from it.
final class CacheDirectoryPermissionTests: XCTestCase {
    /// A user id other than this process's (root can give files to it).
    private let otherUser: uid_t = 65_534

    private func cache(_ directory: URL, log: LogCapture = LogCapture()) -> HTTPCache {
        HTTPCache(directory: directory, maxBytes: 1 << 20, clock: { Date().timeIntervalSince1970 }, logger: log.logger)
    }

    /// A transport through `cache` whose engine answers `body`, cacheable for a minute.
    private func transport(_ cache: HTTPCache, body: String, seen: Recorder<String> = Recorder()) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.cache = cache
        let engine = StubEngine { request in
            seen.add(request.url.absoluteString)
            return RawResponse(request: request, statusCode: .ok, headers: ["Cache-Control": "max-age=600"], data: Data(body.utf8))
        }
        return HTTPTransport(session: Session(configuration: configuration, engine: engine))
    }

    private func mode(_ path: String) -> mode_t {
        var status = stat()
        XCTAssertEqual(lstat(path, &status), 0, path)
        return status.st_mode & 0o777
    }

    /// Stores a response in `directory` through a cache that accepts it, as a planted entry would be.
    private func plant(in directory: URL) throws {
        let planted = transport(cache(directory), body: #"{"admin": true}"#)
        _ = try planted.send(request: HTTPRequest(endpoint: "http://api.test/me")).get()
        XCTAssertEqual(cacheEntryFiles(in: directory).count, 1)
    }

    private func assertRefused(_ directory: URL, because reason: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let log = LogCapture()
        let cache = cache(directory, log: log)
        XCTAssertTrue(cache.refusal?.contains(reason) == true, cache.refusal ?? "accepted", file: file, line: line)
        XCTAssertTrue(log.records.contains { $0.level == .warning && $0.message.contains(reason) }, file: file, line: line)
        let seen = Recorder<String>()
        let transport = transport(cache, body: #"{"admin": false}"#, seen: seen)
        for _ in 0..<2 {
            let response = try transport.send(request: HTTPRequest(endpoint: "http://api.test/me")).get()
            XCTAssertEqual(response.getString(), #"{"admin": false}"#, file: file, line: line)
            XCTAssertEqual(response.metrics.cacheStatus, .disabled, file: file, line: line)
        }
        XCTAssertEqual(seen.count, 2, file: file, line: line)
    }

    func testAMissingDirectoryIsCreatedForThisUserAlone() throws {
        let directory = try temporaryCacheDirectory().appendingPathComponent("a/b/cache")
        XCTAssertNil(cache(directory).refusal)
        XCTAssertEqual(mode(directory.path), 0o700)
        XCTAssertEqual(mode(directory.path + "/.salt"), 0o600)
    }

    func testAWorldWritableDirectoryIsRefusedAndItsEntriesNeverServed() throws {
        let directory = try temporaryCacheDirectory()
        try plant(in: directory)
        chmod(directory.path, 0o777)
        try assertRefused(directory, because: "has mode 777")
    }

    func testAGroupWritableDirectoryIsRefused() throws {
        let directory = try temporaryCacheDirectory()
        chmod(directory.path, 0o770)
        try assertRefused(directory, because: "has mode 770")
    }

    func testADirectoryOwnedByAnotherUserIsRefused() throws {
        if geteuid() == 0 {
            let directory = try temporaryCacheDirectory()
            try plant(in: directory)
            XCTAssertEqual(chown(directory.path, otherUser, otherUser), 0)
            try assertRefused(directory, because: "owned by another user")
        } else {
            // Without root, a directory of another user's is one that exists already: root's.
            try assertRefused(URL(fileURLWithPath: "/usr/share"), because: "owned by another user")
        }
    }

    func testASymbolicLinkOfAnotherUsersIsRefused() throws {
        try XCTSkipUnless(geteuid() == 0, "only root can give a link to another user")
        let parent = try temporaryCacheDirectory()
        let target = parent.appendingPathComponent("target")
        let link = parent.appendingPathComponent("link")
        XCTAssertEqual(mkdir(target.path, 0o700), 0)
        XCTAssertEqual(symlink(target.path, link.path), 0)
        XCTAssertNil(cache(link).refusal, "a link of this user's to a private directory is fine")
        XCTAssertEqual(lchown(link.path, otherUser, otherUser), 0)
        try assertRefused(link, because: "symbolic link owned by another user")
    }

    func testASaltFileOthersCanReadIsRefused() throws {
        let directory = try temporaryCacheDirectory()
        try plant(in: directory)
        chmod(directory.path + "/.salt", 0o644)
        try assertRefused(directory, because: "salt file")
    }

    func testASaltThatIsALinkOrAnotherUsersIsRefused() throws {
        let directory = try temporaryCacheDirectory()
        let chosen = try temporaryCacheDirectory().appendingPathComponent("chosen-salt")
        try Data(repeating: 7, count: 32).write(to: chosen)
        chmod(chosen.path, 0o600)
        XCTAssertEqual(symlink(chosen.path, directory.path + "/.salt"), 0)
        try assertRefused(directory, because: "not a regular file")
        if geteuid() == 0 {
            unlink(directory.path + "/.salt")
            try plant(in: directory)
            XCTAssertEqual(chown(directory.path + "/.salt", otherUser, otherUser), 0)
            try assertRefused(directory, because: "owned by another user")
        }
    }
}
