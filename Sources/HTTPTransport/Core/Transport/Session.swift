import CoreMetrics
import Foundation
import Synchronization
import Tracing

/// The connection pool and TLS policy that sends go through. Share one session (through one
/// `HTTPTransport`) across threads: its pooled connections are reused by the next send on any
/// thread. A session can also be given another engine, e.g. a `StubEngine` for tests.
public final class Session: Sendable {
    /// Limits and defaults of a session.
    public struct Configuration: Sendable {
        /// The largest response body accepted, in bytes (default 100 MiB), in memory or written
        /// to a file (counted after decoding; `Download.maxSize` sets another for one download);
        /// more fails with `.responseTooLarge` while the body streams in.
        public var maxResponseSize: Int64 = 100 * 1024 * 1024
        /// Redirects followed before `.tooManyRedirects` (default 10); 0 returns 3xx responses as they are.
        public var maxRedirects: Int = 10
        /// Seconds a connection attempt may take (bounded by the request's time-out too).
        public var connectTimeout: TimeInterval = 10
        /// Idle connection handles kept for reuse (default 16).
        public var maxIdleHandles: Int = 16
        /// Idle handles unused for this many seconds are closed (default 120).
        public var idleHandleTimeout: TimeInterval = 120
        /// The `User-Agent` sent when a request sets none.
        public var userAgent: String = HTTPTransport.defaultUserAgent
        /// The well-known headers that carry credentials: the default of `credentialHeaders`
        /// and, with `Cookie` and `Set-Cookie`, of the headers `LogRedaction` hides.
        public static let defaultCredentialHeaders: [String] = [
            "Authorization", "Proxy-Authorization", "X-Api-Key", "Api-Key", "X-Auth-Token", "X-Access-Token",
            "X-Amz-Security-Token", "X-Goog-Api-Key", "Private-Token", "X-Vault-Token", "Api-Token", "X-CSRF-Token",
            "X-XSRF-Token",
        ]

        /// Headers that carry credentials: a redirect hop to another origin than the first
        /// request's never sends them, whoever added them (an interceptor included). Default:
        /// `defaultCredentialHeaders` (`Authorization`, `Proxy-Authorization`, `X-Api-Key`,
        /// `X-Goog-Api-Key`, `Private-Token`, `X-CSRF-Token`, …: every header the logs, `curlCommand`
        /// and recordings hide as secret but `Cookie` and
        /// `Set-Cookie`). Setting it replaces the list (start from
        /// `defaultCredentialHeaders` to keep them); the cache keys stored responses by their values too.
        public var credentialHeaders: [String] = Configuration.defaultCredentialHeaders
        /// `false` (the default): a redirect from https to plain http fails with `.insecureRedirect`.
        public var allowsInsecureRedirects: Bool = false
        /// Records a client span per hop (default `nil`: `InstrumentationSystem.tracer`, as
        /// bootstrapped when the session is made). See "Telemetry" in the README.
        public var tracer: (any Tracer)?
        /// Receives the send metrics (default `nil`: `MetricsSystem.factory`, as bootstrapped
        /// when the session is made). See "Telemetry" in the README.
        public var metricsFactory: (any MetricsFactory)?

        // Connections (README "Configuration"; checked once per session, set on every handle)
        /// The proxy to send through: `nil` (the default) takes it from the environment as curl
        /// does (`http_proxy`, `https_proxy`/`HTTPS_PROXY`, `all_proxy`/`ALL_PROXY`, `no_proxy`);
        /// `.direct` never uses one; a `Proxy` ignores the environment.
        public var proxy: Proxy? = nil
        /// Which HTTP version requests use (default `.automatic`: HTTP/2 over TLS when offered).
        public var httpVersion: HTTPVersion = .automatic
        /// Fails a transfer with `.timeout` when no data moves for this many seconds, however long
        /// the request's own time-out is (whole seconds, rounded up; `nil`, the default: no limit).
        public var stallTimeout: TimeInterval? = nil
        /// Sends every request over this Unix domain socket (e.g. `/var/run/docker.sock`); the URL
        /// still gives the `Host` header and the path.
        public var unixSocketPath: String? = nil
        /// Addresses to use for `host:port` instead of resolving the name, like curl's
        /// `--resolve`: `["api.example.com:443": "10.0.0.7"]` (several addresses comma-separated).
        public var resolveOverrides: [String: String] = [:]
        /// Which address family connections use (default `.any`).
        public var ipVersion: IPVersion = .any
        /// Which addresses connections may go to (default `.any`); `.publicOnly` guards servers that
        /// fetch URLs their users supply. See `AddressPolicy`.
        public var addressPolicy: AddressPolicy = .any
        /// The HTTP cache, or nil (the default) for none. See `HTTPCache`.
        public var cache: HTTPCache?
        /// A rate per origin and `Retry-After` pauses for every send of the session, or nil (the
        /// default) for none. See `HostLimits`.
        public var hostLimits: HostLimits?
        /// Stops sending to an origin that keeps failing, or nil (the default) for never. See `CircuitBreaker`.
        public var circuitBreaker: CircuitBreaker?
        /// Where the host limits, circuits and retry budget are shared with other sessions and
        /// processes, or nil (the default) for this session's own. See `SharedOriginState`.
        public var sharedState: (any SharedOriginState)?

        // Concurrency (README "Concurrency")
        /// The most connections the session's transfer loop (async sends, `send(requests:)`,
        /// streams) opens to one host at once (default 0: no limit); more transfers to it wait
        /// for a connection. Set it to keep one slow host from holding every connection.
        public var maxConnectionsPerHost: Int = 0
        /// The most async sends, `send(requests:)` exchanges and streams of this session running
        /// at once (default 1,000); more wait in order, holding no thread, their time-out
        /// starting when they start. The transfer loop keeps as many connections open for
        /// reuse (at least 16, at most a quarter of the open-file limit, besides open
        /// WebSockets'), whatever is in flight when one ends.
        public var maxConcurrentTransfers: Int = 1_000
        /// Whether concurrent requests to an HTTP/2 origin share one connection on the session's
        /// transfer loop (default `true`); `false` opens one connection per concurrent request.
        public var multiplexing: Bool = true

        // Steps (the Architecture article)
        /// Your own steps of every send (`HTTPSendStep`), in order, below the cache and the
        /// per-origin limits and just above the engine (OkHttp's network interceptors): they
        /// see each request that goes to the network, redirect hops and retries included, and
        /// its response as it came. Default: none.
        public var networkSteps: [any HTTPSendStep] = []

        /// The defaults.
        public init() {}
    }

    /// The TLS policy.
    public let security: Security
    /// Limits and defaults.
    public let configuration: Configuration
    /// What performs exchanges: libcurl, unless another engine was given.
    public let engine: any HTTPEngine
    /// Endpoints this session parsed recently (see `ParsedEndpoints`).
    let parsedEndpoints = ParsedEndpoints()
    /// What the features keep for all sends (`SessionFeatures`, with the list of steps).
    let features: SessionFeatures
    /// Threads for what must block: another engine's exchanges in async sends (a stub, a
    /// replay, yours) and the cache's background revalidations.
    let asyncThreads: TransferThreads
    /// `maxConcurrentTransfers`: the async sends, fan-out requests and streams running at once.
    let transferGate: TransferGate
    /// Where async sends run their steps between waits (`SessionExecutor`).
    let executor: SessionExecutor
    /// Where async sends' progress handlers run (`ProgressRelay`), apart from the steps: a
    /// handler that blocks holds one of these, never a step's thread.
    let progressThreads: TransferThreads
    /// `engine` when it is libcurl's with a transfer loop, whose async exchanges need none of
    /// the session's threads (`executeAsync` calls it directly).
    let loopEngine: CurlEngine?

    /// A session with the given TLS policy, limits and engine (libcurl by default).
    public convenience init(security: Security = .noEvaluation, configuration: Configuration = Configuration(),
                engine: (any HTTPEngine)? = nil) {
        self.init(security: security, configuration: configuration, engine: engine, clock: .system)
    }

    /// A session whose per-origin rules read `clock` (tests give a manual one).
    init(security: Security = .noEvaluation, configuration: Configuration = Configuration(),
         engine: (any HTTPEngine)? = nil, clock: ResilienceClock) {
        self.security = security
        self.configuration = configuration
        let engine = engine ?? CurlEngine(security: security, configuration: configuration)
        self.engine = engine
        loopEngine = (engine as? CurlEngine).flatMap { $0.loop == nil ? nil : $0 }
        asyncThreads = TransferThreads(
            maxThreads: configuration.maxConcurrentTransfers,
            maxPerOrigin: configuration.maxConnectionsPerHost > 0 ? configuration.maxConnectionsPerHost : nil,
            idleTimeout: 30)
        features = SessionFeatures(security: security, configuration: configuration, engine: engine, clock: clock)
        transferGate = TransferGate(limit: configuration.maxConcurrentTransfers)
        executor = SessionExecutor(maxThreads: Self.executorThreads)
        progressThreads = TransferThreads(maxThreads: Self.executorThreads, idleTimeout: 30, threadName: "HTTPTransport.progress")
    }

    deinit {
        // Its threads end with it (after the jobs they hold), not after idling for 30 s; the
        // transfer loop's thread ends with the engine.
        executor.close()
        asyncThreads.close()
        progressThreads.close()
    }
}

extension Session {
    /// The most threads a session's async sends run their steps on at once (`SessionExecutor`):
    /// the steps are short, so two per core suffice; an interceptor that blocks holds one.
    static let executorThreads = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)

    /// Runs `job` on one of the session's transfer threads, counted against the origin of
    /// `endpoint` (see `TransferThreads`). The thread does not inherit the caller's task values:
    /// the caller's trace context goes along.
    func runOnTransferThread(for endpoint: String, _ job: @escaping @Sendable () -> Void) {
        let context = TelemetryContext.current
        asyncThreads.run(origin: TransferThreads.origin(of: endpoint)) { TelemetryContext.run(in: context, job) }
    }

    /// The events of a send that starts now (its telemetry).
    func sendEvents() -> SendEvents { features.events() }

    /// The network below the cache, for an exchange the session makes by itself (a cache's
    /// background revalidation): the per-origin step, when configured, then the engine.
    func network(_ request: RawRequest, control: TransferControl, telemetry: SendEvents) -> RawResponse {
        let pipeline = SendPipeline(session: self, steps: SendPipeline.steps(of: self, retrier: nil, network: true))
        return SendChain(context: HTTPSendContext(pipeline: pipeline, control: control, telemetry: telemetry)).send(request)
    }
}

/// Performs one exchange: turns a wire request into a wire response. libcurl's engine is the
/// default; give a session your own (e.g. `StubEngine`) to test code without a network.
public protocol HTTPEngine: Sendable {
    /// Sends `request` and returns what came back, or a response whose `error` says why not.
    /// Must not follow redirects: the pipeline does.
    func execute(_ request: RawRequest, control: TransferControl) -> RawResponse

    /// The same exchange in an async send, the task suspended while it runs. The default runs
    /// `execute` on one of the session's transfer threads; implement it when your engine can
    /// wait without a thread (libcurl's runs the transfer on the session's transfer loop).
    func executeAsync(_ request: RawRequest, control: TransferControl) async -> RawResponse
}

/// Per-send controls an engine honours: progress reports and cancellation.
public struct TransferControl: Sendable {
    /// Called on the sending thread with bytes so far; return `false` to cancel.
    public var progress: (@Sendable (TransferProgress) -> Bool)?
    /// Cancels the transfer from another thread.
    public var cancellation: CancellationHandle?

    /// Controls with nothing set.
    public init(progress: (@Sendable (TransferProgress) -> Bool)? = nil, cancellation: CancellationHandle? = nil) {
        self.progress = progress
        self.cancellation = cancellation
    }

    /// Whether either control is set (the transfer's state keeps them).
    var isSet: Bool { progress != nil || cancellation != nil }

    /// Set by whoever runs the transfer when it stops the transfer itself once `cancellation`
    /// fires (the session's transfer loop), so that no progress callback needs to look.
    var runnerStopsOnCancellation = false

    /// Whether the transfer runs libcurl's progress callback: it reports progress, and notices
    /// a cancellation that nothing else would. (Called on every turn of libcurl's transfer, it
    /// cost an async send a few thousand instructions for a cancellation the loop handles.)
    var needsProgressCallback: Bool { progress != nil || (cancellation != nil && !runnerStopsOnCancellation) }
}

/// Bytes moved so far in one transfer.
public struct TransferProgress: Sendable, Hashable {
    /// Body bytes sent.
    public var bytesSent: Int64
    /// Body bytes expected to be sent, when known.
    public var totalBytesToSend: Int64?
    /// Body bytes received.
    public var bytesReceived: Int64
    /// Body bytes expected, when the server said.
    public var totalBytesToReceive: Int64?
}

/// What a `CancellationHandle` wakes through its own method when it is cancelled.
protocol CancellationWaker: AnyObject, Sendable {
    /// The handle was cancelled (called under the handle's lock: it must not block).
    func cancellationRequested()
}

/// Cancels a send from another thread: `cancel()` makes the send return `.cancelled` promptly.
public final class CancellationHandle: @unchecked Sendable {
    /// Set once by `cancel()` (held here, not in an object of its own: one allocation per send fewer).
    private let flag = Atomic<Bool>(false)
    /// The lock of `wakerState`: held here rather than in a `Locked` value (an async send makes
    /// a handle, and an object fewer per send saves ~0.25k instructions).
    private let mutex = PthreadMutex()
    /// Guarded by `mutex`, which already keeps any two accesses apart: no dynamic exclusivity check.
    @exclusivity(unchecked) private var wakerState = Wakers()

    /// The actions `cancel()` runs. Most handles (one per async send) have one waker at a
    /// time: it has a place of its own, so that such a handle allocates no dictionary.
    private struct Wakers: Sendable {
        var next = 0
        var first: (token: Int, action: Waker)?
        var others: [Int: Waker] = [:]
    }

    /// A closure, or an object woken through its own method (no closure made per registration).
    private enum Waker: Sendable {
        case action(@Sendable () -> Void)
        case object(any CancellationWaker)

        func wake() {
            switch self {
            case .action(let action): action()
            case .object(let object): object.cancellationRequested()
            }
        }
    }

    /// A handle that has not been cancelled.
    public init() {}

    /// Runs `body` on the wakers under the lock.
    private func withWakers<Result>(_ body: (inout Wakers) -> Result) -> Result {
        mutex.lock()
        defer { mutex.unlock() }
        return body(&wakerState)
    }

    /// Requests cancellation of the sends that use this handle; running transfers stop promptly.
    public func cancel() {
        flag.store(true, ordering: .releasing)
        // Wake while holding the lock, so a waker is never called after its removal returned.
        withWakers { state in
            state.first?.action.wake()
            for waker in state.others.values { waker.wake() }
        }
    }

    /// Registers an action run by `cancel()` (the engine wakes its poll with it).
    func addWaker(_ action: @escaping @Sendable () -> Void) -> Int { add(.action(action)) }

    /// Registers an object whose `cancellationRequested()` `cancel()` calls (the transfer loop's
    /// transfer: an async send registers one without making a closure for it).
    func addWaker(_ object: any CancellationWaker) -> Int { add(.object(object)) }

    private func add(_ waker: Waker) -> Int {
        withWakers { state in
            state.next += 1
            if state.first == nil {
                state.first = (state.next, waker)
            } else {
                state.others[state.next] = waker
            }
            return state.next
        }
    }

    func removeWaker(_ token: Int) {
        withWakers { state in
            if state.first?.token == token {
                state.first = nil
            } else {
                _ = state.others.removeValue(forKey: token)
            }
        }
    }

    /// `true` once `cancel()` was called.
    public var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Waits up to `seconds`, returning early (`true`) as soon as the handle is cancelled.
    func wait(seconds: TimeInterval) -> Bool {
        if isCancelled { return true }
        guard seconds > 0 else { return false }
        let condition = NSCondition()
        let token = addWaker {
            condition.lock()
            condition.signal()
            condition.unlock()
        }
        defer { removeWaker(token) }
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        while !isCancelled, condition.wait(until: deadline) {}
        condition.unlock()
        return isCancelled
    }
}

/// An engine made from a closure: serves canned responses so code can be tested without a
/// network, as httpx's `MockTransport` does.
///
/// ```swift
/// let stub = StubEngine { request in
///     RawResponse(request: request, statusCode: .ok, data: Data(#"{"ok":true}"#.utf8))
/// }
/// let transport = HTTPTransport(session: Session(engine: stub))
/// ```
public struct StubEngine: HTTPEngine {
    private let handler: @Sendable (RawRequest) -> RawResponse

    /// An engine answering every request with `handler`.
    public init(_ handler: @escaping @Sendable (RawRequest) -> RawResponse) { self.handler = handler }

    public func execute(_ request: RawRequest, control: TransferControl) -> RawResponse { handler(request) }
}
