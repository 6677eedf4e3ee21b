import Foundation

/// The two interpreters of a send's steps (`SendPipeline.steps`): each hands a request to the
/// step at `index`, carries out what it asks (forward to the steps below, wait) and resumes it,
/// until it answers; below the last step, the engine performs the exchange. The blocking one
/// waits by blocking the thread, the async one by suspending the task. The steps' decisions
/// exist once, in the steps.
struct SendChain {
    let context: HTTPSendContext

    /// Sends `request` through the steps from `index` down, on the calling thread.
    func send(_ request: RawRequest, from index: Int = 0) -> RawResponse {
        let steps = context.pipeline.steps
        guard index < steps.count else { return EngineStep.exchange(request, context: context) }
        return steps[index].run(request, context: context) { send($0, from: index + 1) }
    }

    /// The same without holding a thread while it waits.
    func send(_ request: RawRequest, from index: Int = 0) async -> RawResponse {
        let steps = context.pipeline.steps
        guard index < steps.count else { return await EngineStep.exchange(request, context: context) }
        return await steps[index].run(request, context: context) { await send($0, from: index + 1) }
    }
}

/// A step as the interpreters hold it: `HTTPSendStep` with its two runs, so that each step's
/// runs are compiled for its own type (a run through the bare protocol would move every
/// step's state through generic code). The library's steps are `SendStep`s; a user's step is
/// wrapped (`UserStep`).
protocol SendStep: HTTPSendStep {
    func run(_ request: RawRequest, context: HTTPSendContext, below: (RawRequest) -> RawResponse) -> RawResponse
    func run(_ request: RawRequest, context: HTTPSendContext, below: (RawRequest) async -> RawResponse) async -> RawResponse
}

extension SendStep {
    /// This step's part of a blocking send: `below` sends to the steps under it.
    func run(_ request: RawRequest, context: HTTPSendContext, below: (RawRequest) -> RawResponse) -> RawResponse {
        var (exchange, action) = start(request, context: context)
        var sent: RawRequest?  // what went out last, of the requests this step forwarded
        while true {
            // (Consumed: its request or response moves on instead of being copied out, then released.)
            switch (consume action).kind {
            case .answer(let response): return response
            case .fail(let error): return Self.failed(request, error, sent: sent)
            case .forward(let next):
                let response = below(next)
                if response.wasSent { sent = response.request }
                action = resume(&exchange, with: response, context: context)
            case .wait(let seconds, let clock):
                let cancellation = context.control.cancellation
                let completed = clock?.pause(seconds, cancellation) ?? CancellationHandle.wait(seconds, unless: cancellation)
                action = resume(&exchange, afterWaiting: completed, context: context)
            case .enter(let gate, let deadline):
                action = resume(&exchange, afterWaiting: gate.enterBlocking(deadline: deadline.instant) == .entered, context: context)
            }
        }
    }

    /// This step's part of an async send.
    func run(_ request: RawRequest, context: HTTPSendContext, below: (RawRequest) async -> RawResponse) async -> RawResponse {
        var (exchange, action) = start(request, context: context)
        var sent: RawRequest?  // what went out last, of the requests this step forwarded
        while true {
            switch (consume action).kind {
            case .answer(let response): return response
            case .fail(let error): return Self.failed(request, error, sent: sent)
            case .forward(let next):
                let response = await below(next)
                if response.wasSent { sent = response.request }
                action = resume(&exchange, with: response, context: context)
            case .wait(let seconds, let clock):
                let cancellation = context.control.cancellation
                let completed = if let clock { await clock.pause(seconds, cancellation) } else {
                    await CancellationHandle.sleep(seconds, unless: cancellation)
                }
                action = resume(&exchange, afterWaiting: completed, context: context)
            case .enter(let gate, let deadline):
                action = resume(&exchange, afterWaiting: await gate.enter(deadline: deadline.instant) == .entered, context: context)
            }
        }
    }

    /// The response of a step that failed `request` (`HTTPSendAction.fail`): unsent when the
    /// step forwarded nothing that went out; otherwise on the request that went out last (a
    /// retrier is told what reached the server, an idempotency key included).
    private static func failed(_ request: RawRequest, _ error: HTTPTransportError, sent: RawRequest?) -> RawResponse {
        var error = error
        let request = sent ?? request
        if error.url == nil { error.url = request.url.absoluteString }
        var response = RawResponse(request: request, error: error)
        response.wasSent = sent != nil
        return response
    }
}
