/// The list of a send's steps, top to bottom, built from the configuration in this one place
/// (DESIGN §3b): each step holds its feature; a feature that is off has no step.
extension SendPipeline {
    /// The steps of a send through `session`, with `retrier` (nil: no retries). `network`: only
    /// those below the cache, for an exchange the session makes by itself (a cache's
    /// background revalidation).
    static func steps(of session: Session, retrier: (any HTTPRetrier)?, network: Bool = false) -> [any SendStep] {
        var steps: [any SendStep] = []
        if !network {
            if session.telemetry.isEnabled { steps.append(SendTelemetryStep()) }
            if let retrier { steps.append(RetryStep(retrier: retrier, shared: session.sharedState)) }
            steps.append(HopStep())
            if let cache = session.configuration.cache { steps.append(CacheStep(cache: cache)) }
        }
        if let originGuard = session.originGuard { steps.append(OriginLimitsStep(originGuard: originGuard)) }
        steps += session.configuration.networkSteps.map { bounded($0) }
        return steps
    }
}

/// `step` held to `HTTPSendAction.maxActions` per send (`UserStep`).
private func bounded<Step: HTTPSendStep>(_ step: Step) -> any SendStep { UserStep(step: step) }

/// A user's step (`Session.Configuration.networkSteps`), held to `HTTPSendAction.maxActions`
/// per send: one that never answers ends its send with `.interceptorFailed`.
struct UserStep<Step: HTTPSendStep>: SendStep {
    let step: Step

    func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: (Step.Exchange, actions: Int), action: HTTPSendAction) {
        let (exchange, action) = step.start(request, context: context)
        return ((exchange, 1), action)
    }

    func resume(_ exchange: inout (Step.Exchange, actions: Int), with response: RawResponse,
                context: HTTPSendContext) -> HTTPSendAction {
        counted(&exchange.actions) ?? step.resume(&exchange.0, with: response, context: context)
    }

    func resume(_ exchange: inout (Step.Exchange, actions: Int), afterWaiting completed: Bool,
                context: HTTPSendContext) -> HTTPSendAction {
        counted(&exchange.actions) ?? step.resume(&exchange.0, afterWaiting: completed, context: context)
    }

    /// Counts one action more; the failure once there were too many.
    private func counted(_ actions: inout Int) -> HTTPSendAction? {
        actions += 1
        guard actions > HTTPSendAction.maxActions else { return nil }
        return .fail(HTTPTransportError(
            code: .interceptorFailed,
            message: "The send step \(Step.self) asked for \(HTTPSendAction.maxActions) actions (forward or wait) in one send "
                + "without answering; its send was ended. A step must answer (.answer or .fail) after its last forward."))
    }
}
