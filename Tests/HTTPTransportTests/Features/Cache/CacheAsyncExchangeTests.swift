import Foundation
@testable import HTTPTransport
import XCTest

/// The cache's step (`CacheStep`) run by the async interpreter (network step awaited) answers
/// exactly as it does run by the blocking one: the same requests sent, the same responses, the same `cacheStatus`,
/// the same entries stored. Each path runs on two fresh caches with a fixed clock and the same
/// scripted network, once through each exchange.
final class CacheAsyncExchangeTests: XCTestCase {
    private let endpoint = "http://api.test/doc"
    private let session = Session(configuration: Session.Configuration(), engine: StubEngine { request in
        RawResponse(request: request, error: HTTPTransportError(code: .other, message: "the engine is not used here"))
    })

    /// Answers with the scripted responses in order, recording every request it gets.
    private final class ScriptedNetwork: Sendable {
        private let script: [@Sendable (RawRequest) -> RawResponse]
        let sent = Recorder<RawRequest>()

        init(_ script: [@Sendable (RawRequest) -> RawResponse]) { self.script = script }

        func answer(_ request: RawRequest) -> RawResponse {
            let number = sent.count
            sent.add(request)
            guard number < script.count else {
                return RawResponse(request: request, error: HTTPTransportError(code: .other, message: "script ended"))
            }
            return script[number](request)
        }

        /// The same answer after a suspension, as an awaited transfer gives it.
        func answerLater(_ request: RawRequest) async -> RawResponse {
            await Task.yield()
            return answer(request)
        }
    }

    /// What a response says, without its timings (a hit measures its own duration).
    private struct Outcome: Equatable {
        let status: Int?
        let headers: HTTPHeaders
        let body: Data?
        let cacheStatus: HTTPCacheStatus
        let error: String?
        let request: Sent

        init(_ response: RawResponse) {
            status = response.statusCode?.rawValue
            headers = response.headers
            body = response.data
            cacheStatus = response.metrics.cacheStatus
            error = response.error?.message
            request = Sent(response.request)
        }
    }

    /// What a request carried to the network.
    private struct Sent: Equatable {
        let method: String
        let url: URL
        let headers: HTTPHeaders

        init(_ request: RawRequest) {
            method = request.method.rawValue
            url = request.url
            headers = request.headers
        }
    }

    private struct Run: Equatable {
        let outcomes: [Outcome]
        let sent: [Sent]
    }

    /// A send's context on the stub session, with no controls.
    private func context() -> HTTPSendContext {
        HTTPSendContext(pipeline: SendPipeline(session: session, steps: []), control: TransferControl(),
                        telemetry: session.sendEvents())
    }

    private func cache() -> HTTPCache {
        HTTPCache(directory: nil, maxBytes: 1 << 20, clock: { 1_800_000_000 })
    }

    private func runSynchronously(_ requests: [RawRequest], _ script: [@Sendable (RawRequest) -> RawResponse]) -> Run {
        let cache = cache(), network = ScriptedNetwork(script)
        let step = CacheStep(cache: cache), context = context()
        let outcomes = requests.map { Outcome(step.run($0, context: context, below: network.answer)) }
        return Run(outcomes: outcomes, sent: network.sent.values.map(Sent.init))
    }

    private func runAsynchronously(_ requests: [RawRequest], _ script: [@Sendable (RawRequest) -> RawResponse]) async -> Run {
        let cache = cache(), network = ScriptedNetwork(script)
        let step = CacheStep(cache: cache), context = context()
        var outcomes: [Outcome] = []
        for request in requests {
            outcomes.append(Outcome(await step.run(request, context: context, below: { await network.answerLater($0) })))
        }
        return Run(outcomes: outcomes, sent: network.sent.values.map(Sent.init))
    }

    /// Runs `requests` through both exchanges, checks they agree, and returns the run.
    private func bothRuns(_ requests: [RawRequest], _ script: [@Sendable (RawRequest) -> RawResponse],
                          file: StaticString = #filePath, line: UInt = #line) async -> Run {
        let synchronous = runSynchronously(requests, script)
        let asynchronous = await runAsynchronously(requests, script)
        XCTAssertEqual(asynchronous, synchronous, file: file, line: line)
        return asynchronous
    }

    private func get(_ headers: HTTPHeaders = [:]) throws -> RawRequest {
        RawRequest(url: try XCTUnwrap(URL(string: endpoint)), headers: headers)
    }

    private func ok(_ headers: HTTPHeaders, _ body: String) -> @Sendable (RawRequest) -> RawResponse {
        { RawResponse(request: $0, statusCode: .ok, headers: headers, data: Data(body.utf8)) }
    }

    private func status(_ code: HTTPStatusCode, _ headers: HTTPHeaders = [:]) -> @Sendable (RawRequest) -> RawResponse {
        { RawResponse(request: $0, statusCode: code, headers: headers, data: Data()) }
    }

    func testAMissThenAHitAgreeAndUseTheNetworkOnce() async throws {
        let run = await bothRuns([try get(), try get()], [ok(["Cache-Control": "max-age=60"], "one")])
        XCTAssertEqual(run.outcomes.map(\.cacheStatus), [.miss, .hit])
        XCTAssertEqual(run.outcomes.last?.body, Data("one".utf8))
        XCTAssertEqual(run.sent.count, 1)
    }

    func testARevalidationAnsweredNotModifiedAgreesAndServesTheStoredBody() async throws {
        let run = await bothRuns([try get(), try get(), try get()], [
            ok(["Cache-Control": "max-age=0", "ETag": "\"v1\""], "one"),
            status(.notModified, ["Cache-Control": "max-age=60", "ETag": "\"v1\""]),
        ])
        XCTAssertEqual(run.outcomes.map(\.cacheStatus), [.miss, .revalidated, .hit])
        XCTAssertEqual(run.outcomes[1].status, 200)
        XCTAssertEqual(run.outcomes[1].body, Data("one".utf8))
        XCTAssertEqual(run.sent.count, 2)
        XCTAssertEqual(run.sent.last?.headers["If-None-Match"], "\"v1\"")
    }

    func testANotModifiedAboutAnotherRepresentationAgreesAndAsksOnceMorePlainly() async throws {
        let run = await bothRuns([try get(), try get()], [
            ok(["Cache-Control": "max-age=0", "ETag": "\"v1\""], "one"),
            status(.notModified, ["ETag": "\"v2\""]),
            ok(["Cache-Control": "max-age=60", "ETag": "\"v2\""], "two"),
        ])
        XCTAssertEqual(run.outcomes.map(\.cacheStatus), [.miss, .miss])
        XCTAssertEqual(run.outcomes.last?.body, Data("two".utf8))
        // The second exchange is the one path that uses the network twice.
        XCTAssertEqual(run.sent.count, 3)
        XCTAssertNil(run.sent.last?.headers["If-None-Match"])
    }

    func testANoStoreResponseAgreesAndIsFetchedEveryTime() async throws {
        let noStore = ok(["Cache-Control": "no-store"], "one")
        let run = await bothRuns([try get(), try get()], [noStore, noStore])
        XCTAssertEqual(run.outcomes.map(\.cacheStatus), [.miss, .miss])
        XCTAssertEqual(run.sent.count, 2)
    }

    func testAnUnsatisfiableOnlyIfCachedAgreesAndNeverUsesTheNetwork() async throws {
        let run = await bothRuns([try get(["Cache-Control": "only-if-cached"])], [])
        XCTAssertEqual(run.outcomes.map(\.status), [504])
        XCTAssertEqual(run.outcomes.map(\.cacheStatus), [.miss])
        XCTAssertNotNil(run.outcomes.first?.error)
        XCTAssertEqual(run.sent.count, 0)
    }

    func testAPostInvalidatingTheURLAgreesAndTheNextGetGoesToTheNetwork() async throws {
        var post = try get()
        post.method = .post
        post.httpBody = Data("change".utf8)
        let fresh = ok(["Cache-Control": "max-age=60"], "one")
        let run = await bothRuns([try get(), try get(), post, try get()],
                                 [fresh, status(.created), ok(["Cache-Control": "max-age=60"], "two")])
        XCTAssertEqual(run.outcomes.map(\.cacheStatus), [.miss, .hit, .miss, .miss])
        XCTAssertEqual(run.outcomes.last?.body, Data("two".utf8))
        XCTAssertEqual(run.sent.map(\.method), ["GET", "POST", "GET"])
    }
}
