import Foundation

/// How a send takes its place among the session's `maxConcurrentTransfers` (`TransferGate`).
enum TransferPlace {
    /// Takes none: a blocking send, or an exchange the session makes by itself.
    case none
    /// Waits for a place until `deadline` (its request's time-out, counted from the call).
    case waits(until: GateDeadline)
    /// The caller took it already (a fan-out takes its places in its requests' order); the
    /// step gives it back.
    case held
}

/// The first step of an async send, fan-out request or stream: it waits for a place among the
/// session's `maxConcurrentTransfers` (`HTTPSendAction.enter`, which the interpreter waits on
/// without holding a thread), sends, and gives the place back when the steps below answered
/// (a stream's, which answer with its head, when its body ended: `leave`). A blocking send
/// starts below it (`SendPipeline.blockingStart`), and so does an async one the gate lets pass
/// at once (`passesAtOnce`, asked by `runAsync`).
struct TransferGateStep: SendStep {
    let gate: TransferGate

    /// The request while it waits, whether the send holds a place, and its streamed body (whose
    /// transfer may go on after the steps below answered with its head).
    struct Exchange {
        var waiting: RawRequest?
        var holdsPlace: Bool
        var body: (any ResponseBodyConsumer)?
    }

    func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Exchange, action: HTTPSendAction) {
        let body = request.bodyConsumer
        if let holdsPlace = Self.passesAtOnce(context.place, at: gate) {
            return (Exchange(waiting: nil, holdsPlace: holdsPlace, body: body), .forward(request))
        }
        guard case .waits(let deadline) = context.place else {
            return (Exchange(waiting: nil, holdsPlace: false, body: body), .forward(request))
        }
        return (Exchange(waiting: request, holdsPlace: false, body: body), .enter(gate, until: deadline))
    }

    /// Gives the place back: now, or, when the steps below answered with a stream's head while
    /// its body goes on, once that transfer ended (`ResponseBodyConsumer.afterTransfer`).
    static func leave(_ gate: TransferGate, body: (any ResponseBodyConsumer)?) {
        if let body, body.afterTransfer({ gate.leave() }) { return }
        gate.leave()
    }

    /// Whether a send with `place` passes the gate without waiting (the limit does not bind it
    /// now), and then whether it holds a place to give back when the steps below answered: it
    /// takes none (`false`), holds one (`true`), or took a free one with nobody queued (`true`).
    /// nil: it waits. The async interpreter asks this before the chain and starts such a send
    /// below the step (`SendPipeline.runAsync`), as a blocking one does.
    static func passesAtOnce(_ place: TransferPlace, at gate: TransferGate) -> Bool? {
        switch place {
        case .none: false
        case .held: true
        case .waits: gate.enterIfFree() ? true : nil
        }
    }

    func resume(_ exchange: inout Exchange, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
        if exchange.holdsPlace {
            exchange.holdsPlace = false
            Self.leave(gate, body: exchange.body)
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
    static func enter(_ gate: TransferGate, until deadline: GateDeadline) -> HTTPSendAction {
        HTTPSendAction(kind: .enter(gate, deadline: deadline))
    }
}
