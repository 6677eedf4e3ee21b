import Foundation
import HTTPTransport
@testable import HTTPTransportRedis
import XCTest

/// What is in Redis is not trusted: a variant set of thousands, entries larger than the bound,
/// keys of another type under the storage's prefix cost a bounded read and no outage.
final class RedisCacheStorageBoundsTests: XCTestCase {
    private static let redis = SharedPeer({ try RedisPeer() }, stop: { $0.stop() })
    override class func tearDown() { redis.stop() }

    private func redisCLI(_ arguments: [String]) throws {
        _ = try runRedisCLI(port: Self.redis.get().port, arguments)
    }

    func testAReadTakesAtMostTheVariantsAndBytesOfItsBound() throws {
        let prefix = UUID().uuidString
        let storage = try RedisCacheStorage(url: Self.redis.get().url(), keyPrefix: prefix, maxReadBytes: 2_500)
        let variants = (0..<200).map { "v\($0)" }
        try redisCLI(["SADD", "\(prefix):many"] + variants)
        try redisCLI(["MSET"] + variants.flatMap { ["\(prefix):many:\($0)", "x"] })
        XCTAssertEqual(storage.entries(urlName: "many").count, RedisCacheStorage.maxVariants)
        for index in 0..<3 { storage.store(Data(repeating: 1, count: 1_000), urlName: "big", variant: "v\(index)", lifetime: 60) }
        let big = storage.entries(urlName: "big")
        XCTAssertEqual(big.count, 2, "2,000 of 3,000 bytes fit the bound")
        XCTAssertLessThanOrEqual(big.values.reduce(0) { $0 + $1.count }, 2_500)
        storage.store(Data(repeating: 1, count: 3_000), urlName: "huge", variant: "v", lifetime: 60)
        XCTAssertEqual(storage.entries(urlName: "huge"), [:], "an entry over the bound is not stored")
    }

    func testKeysOfAnotherTypeAreSkippedWithoutAnOutage() throws {
        let prefix = UUID().uuidString
        let storage = try RedisCacheStorage(url: Self.redis.get().url(), keyPrefix: prefix)
        try redisCLI(["HSET", "\(prefix):odd", "f", "x"])
        try redisCLI(["SADD", "\(prefix):mixed", "list", "good"])
        try redisCLI(["RPUSH", "\(prefix):mixed:list", "x"])
        try redisCLI(["SET", "\(prefix):mixed:good", "entry"])
        XCTAssertEqual(storage.entries(urlName: "odd"), [:])
        XCTAssertEqual(storage.entries(urlName: "mixed"), ["good": Data("entry".utf8)])
        storage.store(Data("new".utf8), urlName: "odd", variant: "v", lifetime: 60)
        XCTAssertEqual(storage.entries(urlName: "odd"), ["v": Data("new".utf8)], "the storage still answers")
    }

    func testRemovingAllOfAPrefixWithGlobCharactersLeavesOtherPrefixesAlone() throws {
        let base = UUID().uuidString
        let url = try Self.redis.get().url()
        let globbed = try RedisCacheStorage(url: url, keyPrefix: base + "*")
        let other = try RedisCacheStorage(url: url, keyPrefix: base + "X")
        globbed.store(Data("mine".utf8), urlName: "u", variant: "v", lifetime: 60)
        other.store(Data("theirs".utf8), urlName: "u", variant: "v", lifetime: 60)
        globbed.removeAll()
        XCTAssertEqual(globbed.entries(urlName: "u"), [:])
        XCTAssertEqual(other.entries(urlName: "u"), ["v": Data("theirs".utf8)], "another prefix's entries stay")
    }
}
