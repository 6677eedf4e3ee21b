/// The list of a send's steps, top to bottom, built from the configuration in this one place
/// (DESIGN §3b): each step holds its feature; a feature that is off has no step. This file and
/// the features' configuration fields are the only places outside `Features/` that name
/// the features (the core hears the telemetry through `SendObserver`).
extension SendPipeline {
    /// The steps of a send through `session`, with `retrier` (nil: no retries). `network`: only
    /// those below the cache, for an exchange the session makes by itself (a cache's
    /// background revalidation).
    static func steps(of session: Session, retrier: (any HTTPRetrier)?, network: Bool = false) -> [any SendStep] {
        var steps: [any SendStep] = []
        if !network {
            // Async sends, fan-out requests and streams only: a blocking send starts below it.
            steps.append(TransferGateStep(gate: session.transferGate))
            if session.features.telemetry.isEnabled { steps.append(SendTelemetryStep()) }
            if let retrier { steps.append(RetryStep(retrier: retrier, shared: session.features.sharedState)) }
            steps.append(HopStep())
            if let cache = session.configuration.cache { steps.append(CacheStep(cache: cache)) }
        }
        if let originGuard = session.features.originGuard { steps.append(OriginLimitsStep(originGuard: originGuard)) }
        steps += session.configuration.networkSteps.map { bounded($0) }
        return steps
    }
}

/// What a session's features keep for all its sends, made once from its configuration.
struct SessionFeatures: Sendable {
    /// The tracer and metrics the sends report to.
    let telemetry: SessionTelemetry
    /// The way to `configuration.sharedState`, or nil.
    let sharedState: SharedStateLink?
    /// The per-origin rules (host limits, circuit breaker); nil when neither is configured.
    let originGuard: OriginGuard?
    /// What a shared `HTTPCache` keys this session's responses by besides URL and credentials.
    let cacheConnectionIdentity: String

    init(security: Security, configuration: Session.Configuration, engine: any HTTPEngine, clock: ResilienceClock) {
        telemetry = SessionTelemetry(configuration: configuration, engine: engine)
        sharedState = SharedStateLink(configuration: configuration)
        originGuard = OriginGuard(configuration: configuration, shared: sharedState, clock: clock)
        cacheConnectionIdentity = CacheKey.connectionIdentity(security: security, configuration: configuration)
    }

    /// The events of a send that starts now.
    func events() -> SendEvents { SendEvents(telemetry.observer()) }
}

/// `step` held to `HTTPSendAction.maxActions` per send (`UserStep`).
private func bounded<Step: HTTPSendStep>(_ step: Step) -> any SendStep { UserStep(step: step) }

/// A user's step (`Session.Configuration.networkSteps`), held to `HTTPSendAction.maxActions`
/// per send: one that never answers ends its send with `.interceptorFailed`.
struct UserStep<Step: HTTPSendStep>: SendStep {
    let step: Step

    func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: (Step.Exchange, actions: Int), action: HTTPSendAction) {
        let (exchange, action) = step.start(request, context: context)
        var actions = 0
        let first = counted(action, &actions)
        return ((exchange, actions), first)
    }

    func resume(_ exchange: inout (Step.Exchange, actions: Int), with response: RawResponse,
                context: HTTPSendContext) -> HTTPSendAction {
        counted(step.resume(&exchange.0, with: response, context: context), &exchange.actions)
    }

    func resume(_ exchange: inout (Step.Exchange, actions: Int), afterWaiting completed: Bool,
                context: HTTPSendContext) -> HTTPSendAction {
        counted(step.resume(&exchange.0, afterWaiting: completed, context: context), &exchange.actions)
    }

    /// `action`, counted when it asks for more (a forward or a wait); the failure instead once
    /// it would be one more than `maxActions`. (The step always sees the response it asked for:
    /// a step that answers after its last allowed forward answers.)
    private func counted(_ action: HTTPSendAction, _ actions: inout Int) -> HTTPSendAction {
        switch action.kind {
        case .answer, .fail: return action
        case .forward, .wait, .enter: break
        }
        actions += 1
        guard actions > HTTPSendAction.maxActions else { return action }
        return .fail(HTTPTransportError(
            code: .interceptorFailed,
            message: "The send step \(Step.self) asked for more than \(HTTPSendAction.maxActions) actions (forward or wait) in one send "
                + "without answering; its send was ended. A step must answer (.answer or .fail) after its last forward."))
    }
}
