import Foundation

/// How a send takes its place among the session's `maxConcurrentTransfers` (`TransferGate`).
enum TransferPlace {
    /// Takes none: a blocking send, or an exchange the session makes by itself.
    case none
    /// Waits for a place until `deadline` (its request's time-out, counted from the call).
    case waits(until: ContinuousClock.Instant)
    /// The caller took it already (a fan-out takes its places in its requests' order); the
    /// step gives it back.
    case held
}

/// The first step of an async send, fan-out request or stream: it waits for a place among the
/// session's `maxConcurrentTransfers` (`HTTPSendAction.enter`, which the interpreter waits on
/// without holding a thread), sends, and gives the place back when the steps below answered
/// (a stream's when its body ended). A blocking send starts below it (`SendPipeline.blockingStart`).
struct TransferGateStep: SendStep {
    let gate: TransferGate

    /// The request while it waits, and whether the send holds a place.
    struct Exchange {
        var waiting: RawRequest?
        var holdsPlace: Bool
    }

    func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Exchange, action: HTTPSendAction) {
        switch context.place {
        case .none: (Exchange(waiting: nil, holdsPlace: false), .forward(request))
        case .held: (Exchange(waiting: nil, holdsPlace: true), .forward(request))
        case .waits(let deadline):
            // A free place with nobody queued is taken at once, without a wait.
            gate.enterIfFree() ? (Exchange(waiting: nil, holdsPlace: true), .forward(request))
                : (Exchange(waiting: request, holdsPlace: false), .enter(gate, until: deadline))
        }
    }

    func resume(_ exchange: inout Exchange, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
        if exchange.holdsPlace {
            exchange.holdsPlace = false
            gate.leave()
        }
        return .answer(response)
    }

    /// `completed`: the send has its place; otherwise it was cancelled or its deadline passed.
    func resume(_ exchange: inout Exchange, afterWaiting completed: Bool, context: HTTPSendContext) -> HTTPSendAction {
        guard let request = exchange.waiting.take() else {
            return .fail(HTTPTransportError(code: .other, message: "The transfer gate's step resumed twice."))
        }
        guard completed else {
            if context.isCancelled { return .fail(HTTPTransportError(code: .cancelled, message: "The task was cancelled.")) }
            return .fail(gate.timedOut(after: request.timeout))
        }
        exchange.holdsPlace = true
        return .forward(request)
    }
}

extension HTTPSendAction {
    /// Waits for a place at `gate` until `deadline`, holding no thread; then
    /// `resume(_:afterWaiting:context:)` with `true` when the send has it.
    static func enter(_ gate: TransferGate, until deadline: ContinuousClock.Instant) -> HTTPSendAction {
        HTTPSendAction(kind: .enter(gate, deadline: deadline))
    }
}
