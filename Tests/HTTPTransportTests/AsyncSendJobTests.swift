import Foundation
@testable import HTTPTransport
import XCTest

/// The async send's hand-over as a state machine: the continuation is resumed exactly once,
/// with the transfer's result or `.cancelled`, whichever way the states are reached.
final class AsyncSendJobTests: XCTestCase {
    private let cancelled = HTTPTransportError(code: .cancelled, message: "The task was cancelled.")
    private let answer = HTTPTransport.Result.failure(error: HTTPTransportError(code: .timeout, message: "the transfer's own result"))

    /// Installs a continuation, runs `steps` with the job, and returns the job's result once the
    /// continuation was resumed.
    private func run(_ steps: @escaping @Sendable (AsyncSendJob) -> Void, installAfter: ((AsyncSendJob) -> Void)? = nil) async
        -> (installed: Bool, result: HTTPTransport.Result) {
        let job = AsyncSendJob(cancelledError: cancelled)
        installAfter?(job)
        let installed = Protected(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let accepted = job.install(continuation)
            installed.withLock { $0 = accepted }
            if accepted { steps(job) }
        }
        return (installed.withLock { $0 }, job.result)
    }

    func testAStartedTransferAnswersWithItsResult() async {
        let answer = answer
        let (installed, result) = await run { job in
            XCTAssertTrue(job.start())
            job.finish(answer)
        }
        XCTAssertTrue(installed)
        XCTAssertEqual(result.error?.code, .timeout)
    }

    func testCancellingBeforeTheContinuationIsInstalledAnswersCancelledAtOnce() async {
        let (installed, result) = await run({ _ in XCTFail("nothing may run") }, installAfter: { $0.cancel() })
        XCTAssertFalse(installed)
        XCTAssertEqual(result.error?.code, .cancelled)
    }

    func testCancellingWhileQueuedAnswersCancelledAndTheTransferNeverStarts() async {
        let started = Protected<Bool?>(nil)
        let (_, result) = await run { job in
            job.cancel()
            started.withLock { $0 = job.start() }
        }
        XCTAssertEqual(result.error?.code, .cancelled)
        XCTAssertEqual(started.withLock { $0 }, false)
    }

    func testCancellingWhileRunningWaitsForTheTransfersOwnEnd() async {
        let answer = answer
        let (_, result) = await run { job in
            XCTAssertTrue(job.start())
            job.cancel()  // a running transfer is stopped through its CancellationHandle, not here
            job.finish(answer)
        }
        XCTAssertEqual(result.error?.code, .timeout)
    }

    func testAFinishAfterTheAnswerChangesNothing() async {
        let answer = answer
        let (_, result) = await run { job in
            job.cancel()
            job.finish(answer)  // not running: ignored, the continuation was resumed once already
        }
        XCTAssertEqual(result.error?.code, .cancelled)
    }
}
