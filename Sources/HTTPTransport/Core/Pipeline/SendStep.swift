import Foundation

/// One step of a send, written once for blocking and async sends alike (OkHttp's interceptors,
/// as sans-IO state machines): the step never waits by itself; it says what it wants next
/// (`HTTPSendAction`) and is resumed with what came of it. Whoever runs the chain supplies the
/// waiting: a blocking send blocks its thread, an async send suspends its task.
///
/// `start` receives the request from the step above; the step answers it, forwards a request
/// to the steps below (then `resume(_:with:context:)` gets their response), or waits (then
/// `resume(_:afterWaiting:context:)` is called). It may forward again after a response (a
/// retry) and change what comes back. `Exchange` is what the step keeps about one send between
/// its actions (`Void` when it keeps nothing).
///
/// Add your own steps with `Session.Configuration.networkSteps`: they run below the cache and
/// the per-origin limits, just above the engine, so they see every request that goes to the
/// network (redirect hops and retries included) and its response as it came.
///
/// ```swift
/// /// Answers GETs of /health itself; stamps every other request.
/// struct HealthStep: HTTPSendStep {
///     func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Void, action: HTTPSendAction) {
///         if request.url.path == "/health" {
///             return ((), .answer(RawResponse(request: request, statusCode: .ok, data: Data("up".utf8))))
///         }
///         var stamped = request
///         stamped.headers["X-Sent-By"] = "HealthStep"
///         return ((), .forward(stamped))
///     }
///
///     func resume(_ exchange: inout Void, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
///         .answer(response)
///     }
/// }
///
/// var configuration = Session.Configuration()
/// configuration.networkSteps = [HealthStep()]
/// let transport = HTTPTransport(session: Session(configuration: configuration))
/// ```
///
/// A step's code runs on the send's thread (blocking) or on the session's executor (async),
/// so it may take a lock or ask a shared store; to wait for time, return `.wait`. A step that
/// keeps asking for actions without answering (more than `HTTPSendAction.maxActions` in one
/// send) ends the send with `.interceptorFailed`.
public protocol HTTPSendStep: Sendable {
    /// What the step keeps about one send between its actions.
    associatedtype Exchange

    /// The request arrives: the step's state for this send, and what it wants first.
    func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Exchange, action: HTTPSendAction)

    /// The steps below answered the request this step forwarded last.
    func resume(_ exchange: inout Exchange, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction

    /// The wait this step asked for ended: `completed` false when the send was cancelled meanwhile.
    /// (Default: fails the send, for a step that never waits.)
    func resume(_ exchange: inout Exchange, afterWaiting completed: Bool, context: HTTPSendContext) -> HTTPSendAction
}

extension HTTPSendStep {
    public func resume(_ exchange: inout Exchange, afterWaiting completed: Bool, context: HTTPSendContext) -> HTTPSendAction {
        .fail(HTTPTransportError(code: .interceptorFailed,
                                 message: "The send step \(Self.self) asked to wait but does not implement resume(_:afterWaiting:context:)."))
    }
}

/// What a step wants next.
public struct HTTPSendAction: Sendable {
    enum Kind: Sendable {
        case answer(RawResponse)
        case fail(HTTPTransportError)
        case forward(RawRequest)
        /// Wait `seconds` (on `clock`, or real time), ending early when the send is cancelled.
        case wait(seconds: TimeInterval, clock: (any SendWaiting)?)
        /// Wait for a place at the session's transfer gate until the deadline (`TransferGateStep`).
        case enter(TransferGate, deadline: GateDeadline)
    }

    let kind: Kind

    /// The send's answer at this step: nothing below runs (again); the step above gets it.
    public static func answer(_ response: RawResponse) -> HTTPSendAction { HTTPSendAction(kind: .answer(response)) }

    /// The send fails here with `error` (a response to the request the step was given, unsent).
    public static func fail(_ error: HTTPTransportError) -> HTTPSendAction { HTTPSendAction(kind: .fail(error)) }

    /// Hands `request` to the steps below; their response comes back through `resume(_:with:context:)`.
    public static func forward(_ request: RawRequest) -> HTTPSendAction { HTTPSendAction(kind: .forward(request)) }

    /// Waits until `deadline` (at once when it has passed), or less when the send is
    /// cancelled; then `resume(_:afterWaiting:context:)`. A blocking send blocks its thread, an
    /// async one suspends.
    public static func wait(until deadline: ContinuousClock.Instant) -> HTTPSendAction {
        let left = deadline - .now
        let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
        return HTTPSendAction(kind: .wait(seconds: max(0, seconds), clock: nil))
    }

    /// Waits `seconds` on `clock` (a manual clock in tests), as `wait(until:)`.
    static func wait(seconds: TimeInterval, on clock: (any SendWaiting)?) -> HTTPSendAction {
        HTTPSendAction(kind: .wait(seconds: seconds, clock: clock))
    }

    /// The most actions one step may ask for in one send before its send fails
    /// (`.interceptorFailed`): a step that never answers ends instead of spinning.
    public static let maxActions = 1_000
}

/// What belongs to one send, for its steps: its controls, telemetry and pipeline. It lives as
/// long as the send, on the send's thread or task (so it is not `Sendable`).
public struct HTTPSendContext {
    let pipeline: SendPipeline
    /// This send's progress handler and cancellation.
    let control: TransferControl
    /// Spans and metrics of this send (nothing when the session records none).
    let telemetry: SendEvents
    /// How the send takes its place among the session's `maxConcurrentTransfers`.
    var place: TransferPlace = .none

    /// Whether the send was cancelled (by its task or its `CancellationHandle`).
    public var isCancelled: Bool { control.cancellation?.isCancelled ?? false }
}

/// A way of waiting a number of seconds: real time by default; the per-origin rules' clock in
/// tests (`ResilienceClock`). The blocking form blocks the thread, the async one suspends.
protocol SendWaiting: Sendable {
    /// Blocks the thread `seconds`; `false` when `cancellation` was cancelled first.
    func pause(_ seconds: TimeInterval, _ cancellation: CancellationHandle?) -> Bool
    /// Suspends the task `seconds`; `false` when `cancellation` was cancelled first.
    func pause(_ seconds: TimeInterval, _ cancellation: CancellationHandle?) async -> Bool
}
