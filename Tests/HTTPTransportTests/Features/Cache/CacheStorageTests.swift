import Foundation
import HTTPTransport
import XCTest

/// Where the cache keeps responses: memory or a directory; persistence, damaged files,
/// least-recently-used eviction under `maxBytes`, `removeAll()` and many threads.
final class CacheStorageTests: XCTestCase {
    func testADirectoryCacheServesWhatAnEarlierInstanceStored() throws {
        let directory = try temporaryCacheDirectory()
        let resource = CachedResource(["cc": "max-age=60"])
        let first = try sendOK(cachingTransport(HTTPCache(directory: directory)), resource.request)
        let later = try sendOK(cachingTransport(HTTPCache(directory: directory)), resource.request)
        XCTAssertEqual(later.metrics.cacheStatus, .hit)
        XCTAssertEqual(later.body, first.body)
        XCTAssertEqual(try resource.count(), 1)
    }

    func testAnInstanceServesAnEntryThatAnotherInstanceReplaced() throws {
        let directory = try temporaryCacheDirectory()
        let resource = CachedResource(["cc": "max-age=60", "etag": "1"])
        let first = cachingTransport(HTTPCache(directory: directory))
        let second = cachingTransport(HTTPCache(directory: directory))
        _ = try sendOK(first, resource.request)
        XCTAssertEqual(try sendOK(first, resource.request).metrics.cacheStatus, .hit)  // decoded and kept by `first`
        try resource.bump()
        let replaced = try sendOK(second, resource.request.with(header: "Cache-Control", value: "no-cache"))
        XCTAssertEqual(try cacheBody(replaced)["version"] as? Int, 2)
        let seen = try sendOK(first, resource.request)
        XCTAssertEqual(seen.metrics.cacheStatus, .hit)
        XCTAssertEqual(try cacheBody(seen)["version"] as? Int, 2)
    }

    func testAnInstanceMissesAnEntryThatAnotherInstanceRemoved() throws {
        let directory = try temporaryCacheDirectory()
        let resource = CachedResource(["cc": "max-age=60"])
        let first = cachingTransport(HTTPCache(directory: directory))
        _ = try sendOK(first, resource.request)
        XCTAssertEqual(try sendOK(first, resource.request).metrics.cacheStatus, .hit)
        _ = try sendOK(cachingTransport(HTTPCache(directory: directory)), HTTPRequest(httpMethod: .delete, endpoint: resource.url))
        XCTAssertEqual(try sendOK(first, resource.request).metrics.cacheStatus, .miss)
    }

    func testATruncatedEntryFileIsAMissAndIsReplaced() throws {
        try assertDamagedEntryIsAMiss { data in data.prefix(data.count - 10) }
    }

    func testAGarbledEntryFileIsAMissAndIsReplaced() throws {
        try assertDamagedEntryIsAMiss { data in
            var garbled = data
            garbled[garbled.count - 5] ^= 0x20  // one bit of the body
            return garbled
        }
    }

    func testAnEmptyEntryFileIsAMissAndIsReplaced() throws {
        try assertDamagedEntryIsAMiss { _ in Data() }
    }

    private func assertDamagedEntryIsAMiss(_ damage: (Data) -> Data, line: UInt = #line) throws {
        let directory = try temporaryCacheDirectory()
        let resource = CachedResource(["cc": "max-age=60"])
        let stored = try sendOK(cachingTransport(HTTPCache(directory: directory)), resource.request)
        let file = try XCTUnwrap(cacheEntryFiles(in: directory).first, line: line)
        try damage(try Data(contentsOf: file)).write(to: file)

        let transport = cachingTransport(HTTPCache(directory: directory))
        let fetched = try sendOK(transport, resource.request)
        XCTAssertEqual(fetched.metrics.cacheStatus, .miss, line: line)
        XCTAssertEqual(try cacheBody(fetched)["served"] as? Int, 2, line: line)
        XCTAssertEqual(try cacheBody(stored)["served"] as? Int, 1, line: line)
        let again = try sendOK(transport, resource.request)
        XCTAssertEqual(again.metrics.cacheStatus, .hit, line: line)
        XCTAssertEqual(again.body, fetched.body, line: line)
        XCTAssertEqual(cacheEntryFiles(in: directory).count, 1, line: line)
    }

    func testNoCredentialIsWrittenToTheDirectory() throws {
        let directory = try temporaryCacheDirectory()
        let resource = CachedResource(["cc": "max-age=60", "vary": "Authorization, Cookie", "quiet": "1"])
        let secrets = ["secret-token-4242", "secret-cookie-1717"]
        let request = resource.request.with(bearerToken: secrets[0]).with(cookieName: "session", value: secrets[1])
        _ = try sendOK(cachingTransport(HTTPCache(directory: directory)), request)
        let files = cacheEntryFiles(in: directory)
        XCTAssertEqual(files.count, 1)
        for file in files {
            let contents = try Data(contentsOf: file)
            for secret in secrets {
                XCTAssertNil(contents.range(of: Data(secret.utf8)), "\(secret) in \(file.path)")
                XCTAssertFalse(file.path.contains(secret))
            }
        }
    }

    func testNoURLIsWrittenToTheDirectory_soQuerySecretsStayOut() throws {
        let directory = try temporaryCacheDirectory()
        let secret = "secret-query-9191"
        let resource = CachedResource(["cc": "max-age=60", "access_token": secret])
        _ = try sendOK(cachingTransport(HTTPCache(directory: directory)), resource.request)
        let files = cacheEntryFiles(in: directory)
        XCTAssertEqual(files.count, 1)
        for file in files {
            XCTAssertNil(try Data(contentsOf: file).range(of: Data(secret.utf8)), file.path)
            XCTAssertNil(try Data(contentsOf: file).range(of: Data("/cache/\(resource.key)".utf8)), file.path)
        }
        let later = try sendOK(cachingTransport(HTTPCache(directory: directory)), resource.request)
        XCTAssertEqual(later.metrics.cacheStatus, .hit, "the entry is still found by its URL")
        let other = CachedResource(["cc": "max-age=60", "access_token": "another"], key: resource.key)
        XCTAssertEqual(try sendOK(cachingTransport(HTTPCache(directory: directory)), other.request).metrics.cacheStatus, .miss)
    }

    func testADamagedSaltFileIsReplacedAndTheCacheWorks() throws {
        let directory = try temporaryCacheDirectory()
        let resource = CachedResource(["cc": "max-age=60"])
        _ = try sendOK(cachingTransport(HTTPCache(directory: directory)), resource.request)
        try Data("short".utf8).write(to: directory.appendingPathComponent(".salt"))
        let transport = cachingTransport(HTTPCache(directory: directory))
        XCTAssertEqual(try sendOK(transport, resource.request).metrics.cacheStatus, .miss)
        XCTAssertEqual(try sendOK(transport, resource.request).metrics.cacheStatus, .hit)
        XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent(".salt")).count, 32)
        XCTAssertEqual(try sendOK(cachingTransport(HTTPCache(directory: directory)), resource.request).metrics.cacheStatus, .hit)
    }

    func testTheLeastRecentlyUsedResponseIsEvictedFirstInMemory() throws {
        try assertLeastRecentlyUsedEviction(HTTPCache(maxBytes: 100_000))
    }

    func testTheLeastRecentlyUsedResponseIsEvictedFirstInADirectory() throws {
        try assertLeastRecentlyUsedEviction(HTTPCache(directory: try temporaryCacheDirectory(), maxBytes: 100_000))
    }

    /// Three responses of about 30 kB fit in 100 kB; a fourth evicts the one used longest ago.
    private func assertLeastRecentlyUsedEviction(_ cache: HTTPCache, line: UInt = #line) throws {
        let transport = cachingTransport(cache)
        let resources = (0..<4).map { _ in CachedResource(["cc": "max-age=60", "size": "30000"]) }
        for resource in resources.prefix(3) { _ = try sendOK(transport, resource.request) }
        XCTAssertEqual(try sendOK(transport, resources[0].request).metrics.cacheStatus, .hit, line: line)
        _ = try sendOK(transport, resources[3].request)

        XCTAssertEqual(try sendOK(transport, resources[0].request).metrics.cacheStatus, .hit, line: line)
        XCTAssertEqual(try sendOK(transport, resources[2].request).metrics.cacheStatus, .hit, line: line)
        XCTAssertEqual(try sendOK(transport, resources[3].request).metrics.cacheStatus, .hit, line: line)
        XCTAssertEqual(try sendOK(transport, resources[1].request).metrics.cacheStatus, .miss, line: line)
        XCTAssertEqual(try resources.map { try $0.count() }, [1, 2, 1, 1], line: line)
    }

    func testAResponseLargerThanTheWholeCacheIsNotStored() throws {
        let transport = cachingTransport(HTTPCache(maxBytes: 10_000))
        let resource = CachedResource(["cc": "max-age=60", "size": "20000"])
        _ = try sendOK(transport, resource.request)
        XCTAssertEqual(try sendOK(transport, resource.request).metrics.cacheStatus, .miss)
    }

    func testRemoveAllEmptiesAMemoryCache() throws {
        let cache = HTTPCache()
        let resource = CachedResource(["cc": "max-age=60"])
        _ = try sendOK(cachingTransport(cache), resource.request)
        cache.removeAll()
        XCTAssertEqual(try sendOK(cachingTransport(cache), resource.request).metrics.cacheStatus, .miss)
    }

    func testRemoveAllEmptiesADirectoryAndLeavesOtherFilesAlone() throws {
        let directory = try temporaryCacheDirectory()
        let unrelated = directory.appendingPathComponent("notes.txt")
        try Data("mine".utf8).write(to: unrelated)
        let cache = HTTPCache(directory: directory)
        let resource = CachedResource(["cc": "max-age=60"])
        _ = try sendOK(cachingTransport(cache), resource.request)
        XCTAssertEqual(cacheEntryFiles(in: directory).count, 1)
        cache.removeAll()
        XCTAssertEqual(cacheEntryFiles(in: directory), [])
        XCTAssertEqual(try String(contentsOf: unrelated, encoding: .utf8), "mine")
        XCTAssertEqual(try sendOK(cachingTransport(HTTPCache(directory: directory)), resource.request).metrics.cacheStatus, .miss)
    }

    func testEightThreadsShareOneMemoryCache() throws {
        try assertEightThreadsShare(HTTPCache())
    }

    func testEightThreadsShareOneDirectoryCache() throws {
        try assertEightThreadsShare(HTTPCache(directory: try temporaryCacheDirectory()))
    }

    /// Every response carries the body of its own key, and each key reaches the server at most
    /// once per thread (only the first, concurrent misses can go out).
    private func assertEightThreadsShare(_ cache: HTTPCache, line: UInt = #line) throws {
        let transport = cachingTransport(cache)
        let resources = (0..<4).map { _ in CachedResource(["cc": "max-age=60"]) }
        let problems = Protected<[String]>([])
        let hits = Protected(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<25 {
                let resource = resources[(thread + round) % resources.count]
                switch transport.send(request: resource.request) {
                case .success(let response):
                    let key = (try? response.getJSONDictionary())?["key"] as? String
                    if key != resource.key { problems.withLock { $0.append("body of \(key ?? "nothing") for \(resource.key)") } }
                    if response.metrics.cacheStatus == .hit { hits.withLock { $0 += 1 } }
                case .failure(let error):
                    problems.withLock { $0.append("\(error)") }
                }
            }
        }
        XCTAssertEqual(problems.value, [], line: line)
        for resource in resources {
            XCTAssertLessThanOrEqual(try resource.count(), 8, line: line)
        }
        XCTAssertGreaterThanOrEqual(hits.value, 200 - 8 * resources.count, line: line)
    }
}
