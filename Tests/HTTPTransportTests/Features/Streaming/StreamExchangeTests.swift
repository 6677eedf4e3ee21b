import Foundation
@testable import HTTPTransport
import XCTest

/// An async stream's exchanges (`StreamExchange`, run by `StreamChannel.exchange`), without a
/// server: the chain is answered at the streamed head and the transfer's end goes to the body,
/// once; a transfer that ends before a streamed head answers whole; an abandoned exchange's
/// transfer is refused and counts for nothing.
final class StreamExchangeTests: XCTestCase {
    private let url = "http://127.0.0.1:9/stream"

    private func head(_ status: HTTPStatusCode = .ok) throws -> RawResponse {
        RawResponse(request: RawRequest(url: try XCTUnwrap(URL(string: url))), statusCode: status)
    }

    func testTheMachineAnswersAtTheHeadAndEndsTheBodyLaterOnce() throws {
        var exchange = StreamExchange()
        let (number, abandoned) = exchange.begin(cancellation: CancellationHandle())
        XCTAssertNil(abandoned)
        XCTAssertTrue(exchange.headArrived(try head(), of: number))
        XCTAssertEqual(exchange.phase, .streaming)
        XCTAssertEqual(exchange.takeAnswer()?.statusCode, .ok)
        XCTAssertFalse(exchange.headArrived(try head(), of: number), "a head answers once")
        XCTAssertEqual(exchange.ended(try head(), of: number), .bodyEnded)
        XCTAssertNil(exchange.takeAnswer(), "the end goes to the body, not to the chain")
        XCTAssertEqual(exchange.ended(try head(), of: number), .stale, "a transfer ends once")
        XCTAssertFalse(exchange.transferRuns)
    }

    func testATransferEndingBeforeAStreamedHeadAnswersWhole() throws {
        var exchange = StreamExchange()
        let (number, _) = exchange.begin(cancellation: CancellationHandle())
        XCTAssertEqual(exchange.ended(try head(.found), of: number), .answered)
        XCTAssertEqual(exchange.takeAnswer()?.statusCode, .found)
        // The next hop (a redirect) abandons nothing: no transfer runs.
        XCTAssertNil(exchange.begin(cancellation: CancellationHandle()).abandoned)
    }

    func testARepeatAbandonsTheRunningTransferWhoseWordsCountForNothing() throws {
        var exchange = StreamExchange()
        let first = CancellationHandle()
        let (one, _) = exchange.begin(cancellation: first)
        XCTAssertTrue(exchange.headArrived(try head(), of: one))
        _ = exchange.takeAnswer()
        let (two, abandoned) = exchange.begin(cancellation: CancellationHandle())
        XCTAssertTrue(abandoned === first, "the streaming transfer is stopped")
        XCTAssertFalse(exchange.isCurrent(one))
        XCTAssertFalse(exchange.headArrived(try head(), of: one))
        XCTAssertEqual(exchange.ended(try head(), of: one), .stale)
        XCTAssertEqual(exchange.phase, .awaitingHead, "the repeat still waits for its head")
        XCTAssertTrue(exchange.isCurrent(two))
    }

    /// A channel whose scripted exchange answered with its head; the transfer ends once released.
    private func streamingExchange() async throws -> (StreamChannel, AsyncStream<Void>.Continuation) {
        let channel = StreamChannel(url: url)
        let (released, release) = AsyncStream<Void>.makeStream()
        let request = RawRequest(url: try XCTUnwrap(URL(string: url)))
        _ = await channel.exchange(request, body: StreamingBody(consumer: channel), control: TransferControl(),
                                   perform: scripted(released: released))
        return (channel, release)
    }

    /// The engine's side, scripted: a head, a chunk, then (once released) the end.
    private func scripted(released: AsyncStream<Void>) -> @Sendable (RawRequest, TransferControl) async -> RawResponse {
        { request, _ in
            guard let attempt = request.streaming?.consumer else { return RawResponse(request: request, statusCode: .internalServerError) }
            _ = attempt.headArrived(RawResponse(request: request, statusCode: .ok))
            _ = attempt.receive(Data("body".utf8), evenIfFull: false)
            attempt.handedOver()
            for await _ in released { break }
            return RawResponse(request: request, statusCode: .ok)
        }
    }

    func testAnExchangeAnsweredAtItsHeadEndsLaterInTheBodyAndRunsItsEndActionsOnce() async throws {
        let channel = StreamChannel(url: url)
        let (released, release) = AsyncStream<Void>.makeStream()
        let request = RawRequest(url: try XCTUnwrap(URL(string: url)))
        let answer = await channel.exchange(request, body: StreamingBody(consumer: channel), control: TransferControl(),
                                            perform: scripted(released: released))
        XCTAssertEqual(answer.statusCode, .ok)
        XCTAssertNil(answer.data, "the head, while the transfer goes on")
        let ends = Recorder<Int>()
        XCTAssertTrue(channel.afterTransfer { ends.add(1) }, "the transfer runs past the answer")
        channel.handOver()
        XCTAssertEqual(ends.count, 0)
        let first = try await channel.next()
        XCTAssertEqual(first, Data("body".utf8))
        release.yield()
        let end = try await channel.next()
        XCTAssertNil(end, "the transfer's end ended the body")
        await channel.awaitTransferEnd()
        XCTAssertEqual(ends.count, 1)
        XCTAssertFalse(channel.afterTransfer { ends.add(1) }, "no transfer runs now")
    }

    func testAnEndActionAskedForWhileTheEndRunsEarlierOnesRunsAfterThemInOrder() async throws {
        let (channel, release) = try await streamingExchange()
        let order = Recorder<String>()
        // (A step below asks first; one above asks while the first action runs.)
        XCTAssertTrue(channel.afterTransfer {
            order.add("hop begins")
            XCTAssertTrue(channel.afterTransfer { order.add("send") })
            order.add("hop ends")
        })
        channel.handOver()
        release.yield()
        await channel.awaitTransferEnd()
        XCTAssertEqual(order.values, ["hop begins", "hop ends", "send"])
    }

    func testTheBodysEndShowsOnlyOnceTheEndActionsRan() async throws {
        let (channel, release) = try await streamingExchange()
        let (entered, enter) = AsyncStream<Void>.makeStream()
        let proceed = DispatchSemaphore(value: 0)
        // (The gate's place, say: a reader who saw the end and sent again must find it free.)
        XCTAssertTrue(channel.afterTransfer {
            enter.yield()
            _ = proceed.wait(timeout: .now() + 10)
        })
        channel.handOver()
        release.yield()
        for await _ in entered { break }
        XCTAssertFalse(channel.bodyEnded, "the body ended before the end actions ran")
        proceed.signal()
        await channel.awaitTransferEnd()
        XCTAssertTrue(channel.bodyEnded)
    }

    func testARepeatedExchangeStreamsIntoAnEmptyBodyAndTheAbandonedTransferIsRefused() async throws {
        let channel = StreamChannel(url: url)
        let (released, release) = AsyncStream<Void>.makeStream()
        let abandoned = Recorder<(StreamingAnswer, Bool)>()
        let (reported, report) = AsyncStream<Void>.makeStream()
        let request = RawRequest(url: try XCTUnwrap(URL(string: url)))
        let body = StreamingBody(consumer: channel)
        // The first exchange streams its head and a chunk, then, once abandoned, tries once more.
        let first: @Sendable (RawRequest, TransferControl) async -> RawResponse = { request, control in
            guard let attempt = request.streaming?.consumer else { return RawResponse(request: request, statusCode: .internalServerError) }
            _ = attempt.headArrived(RawResponse(request: request, statusCode: .ok))
            _ = attempt.receive(Data("old".utf8), evenIfFull: false)
            for await _ in released { break }
            abandoned.add((attempt.receive(Data("late".utf8), evenIfFull: false), control.cancellation?.isCancelled ?? false))
            report.yield()
            return RawResponse(request: request, statusCode: .ok)
        }
        _ = await channel.exchange(request, body: body, control: TransferControl(), perform: first)
        let second = await channel.exchange(request, body: body, control: TransferControl(), perform: { request, _ in
            RawResponse(request: request, statusCode: .ok, data: Data("new".utf8))
        })
        XCTAssertEqual(second.data, Data("new".utf8), "the repeat answered whole")
        release.yield()
        // (A body that came whole is handed to the channel by the hop, `StreamingBody.finish`.)
        XCTAssertEqual(channel.receive(Data("new".utf8), evenIfFull: true), .more)
        channel.handOver()
        var read = Data()
        while let chunk = try await channel.next() { read.append(chunk) }
        XCTAssertEqual(String(data: read, encoding: .utf8), "new", "nothing of the abandoned exchange")
        for await _ in reported { break }
        XCTAssertEqual(abandoned.values.first?.0, .stop, "the abandoned transfer's chunk was refused")
        XCTAssertEqual(abandoned.values.first?.1, true, "and its transfer was stopped")
    }

    /// (A body that fails after its head, even before the chain took the head, fails the reader,
    /// not the head: the hop's hand-over of the head must not turn the body's error into the head's.)
    func testABodyFailingAfterItsHeadFailsTheReaderNotTheHead() async throws {
        let channel = StreamChannel(url: url)
        let request = RawRequest(url: try XCTUnwrap(URL(string: url)))
        let body = StreamingBody(consumer: channel)
        var head = await channel.exchange(request, body: body, control: TransferControl(), perform: { request, _ in
            guard let attempt = request.streaming?.consumer else { return RawResponse(request: request, statusCode: .internalServerError) }
            _ = attempt.headArrived(RawResponse(request: request, statusCode: .ok))
            return RawResponse(request: request, error: HTTPTransportError(code: .badResponse, message: "cut short"))
        })
        await channel.awaitTransferEnd()
        body.finish(&head)
        XCTAssertNil(head.error)
        XCTAssertEqual(head.statusCode, .ok)
        channel.handOver()
        do {
            _ = try await channel.next()
            XCTFail("the body's failure was lost")
        } catch {
            XCTAssertEqual(error.message, "cut short")
        }
    }
}
