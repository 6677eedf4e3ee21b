import Tracing

/// Carries the caller's `ServiceContext` to the thread that runs a send for it (the async
/// bridge's transfer threads), so the send's spans are children of the caller's span there too.
enum TelemetryContext {
    /// The caller's context, taken where the send is asked for.
    static var current: ServiceContext? { ServiceContext.current }

    /// Runs `body` with `context` as the current `ServiceContext` (as it is when `nil`).
    static func run<Result>(in context: ServiceContext?, _ body: () -> Result) -> Result {
        guard let context else { return body() }
        return ServiceContext.withValue(context, operation: body)
    }

    /// The same for async work (a task started from a thread that had `context`).
    static func run<Result>(in context: ServiceContext?, _ body: () async -> Result) async -> Result {
        guard let context else { return await body() }
        return await ServiceContext.withValue(context, operation: body)
    }
}
