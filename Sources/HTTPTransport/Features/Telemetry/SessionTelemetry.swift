import CoreMetrics
import Foundation
import Synchronization
import Tracing

/// A session's telemetry, settled once when the session is made: the tracer and the metric
/// instruments its sends report to, or `nil` for each that is off. A tracer or factory that is
/// the packages' no-op one (nothing configured, nothing bootstrapped) counts as off, so that a
/// send then makes no span, reads no clock and formats no string for telemetry.
final class SessionTelemetry: SendObserving {
    /// Spans go here; `nil`: tracing is off.
    let tracer: (any Tracer)?
    /// Metrics go here; `nil`: metrics are off.
    let metrics: HTTPClientMetrics?

    /// `true` when a send has anything to record (settled with the rest: every send asks).
    let isEnabled: Bool

    func observer() -> (any SendObserver)? { isEnabled ? SendRecorder(self) : nil }

    /// The configured tracer and factory, else the global systems as bootstrapped now.
    /// Pool statistics come from an engine that keeps a pool (`PoolStatistics`: libcurl's).
    init(configuration: Session.Configuration, engine: any HTTPEngine) {
        let tracer = configuration.tracer ?? InstrumentationSystem.tracer
        self.tracer = tracer is NoOpTracer ? nil : tracer
        let factory = configuration.metricsFactory ?? MetricsSystem.factory
        if factory is NOOPMetricsHandler {
            metrics = nil
        } else {
            var idleHandles: (@Sendable () -> Int)?
            if let pool = engine as? any PoolStatistics { idleHandles = { pool.idleHandleCount } }
            metrics = HTTPClientMetrics(factory: factory, idleHandles: idleHandles)
        }
        isEnabled = self.tracer != nil || metrics != nil
    }
}

/// The metric instruments of one session, named after OpenTelemetry's HTTP client metrics
/// where one exists (`http.client.request.duration`, `http.client.active_requests`).
///
/// Instruments without per-send dimensions are made once here; the duration timer and the byte
/// counters are dimensioned by each send's method, server and outcome, so they are looked up
/// per send (the factory keeps one handler per label and dimensions).
final class HTTPClientMetrics: Sendable {
    static let durationLabel = "http.client.request.duration"
    static let sentBytesLabel = "http.client.request.body.bytes"
    static let receivedBytesLabel = "http.client.response.body.bytes"
    static let activeRequestsLabel = "http.client.active_requests"
    static let poolHandlesLabel = "http.client.pool.handles"
    static let circuitRefusalsLabel = "http.client.circuit_breaker.refusals"

    let factory: any MetricsFactory
    /// Sends under way (between the first hop's start and the send's end).
    private let activeRequests: Meter
    /// The pool's handles by state. Meters that this session moves up and down by its own
    /// changes, so that sessions sharing one factory add up instead of overwriting each other.
    private let idleHandlesMeter: Meter
    private let handlesInUseMeter: Meter
    private let idleHandles: (@Sendable () -> Int)?
    /// The idle count this session last added to `idleHandlesMeter`.
    private let reportedIdle = Atomic<Int>(0)

    init(factory: any MetricsFactory, idleHandles: (@Sendable () -> Int)?) {
        self.factory = factory
        self.idleHandles = idleHandles
        activeRequests = Meter(label: Self.activeRequestsLabel, dimensions: [], factory: factory)
        idleHandlesMeter = Meter(label: Self.poolHandlesLabel, dimensions: [("state", "idle")], factory: factory)
        handlesInUseMeter = Meter(label: Self.poolHandlesLabel, dimensions: [("state", "in_use")], factory: factory)
    }

    deinit {
        // The session's pool closes its handles with it.
        let idle = reportedIdle.load(ordering: .relaxed)
        if idle != 0 { idleHandlesMeter.decrement(by: Double(idle)) }
    }

    func sendStarted() { activeRequests.increment() }
    func sendEnded() { activeRequests.decrement() }

    /// A hop is about to take a handle from the pool.
    func handleCheckedOut() {
        guard idleHandles != nil else { return }
        handlesInUseMeter.increment()
    }

    /// A hop gave its handle back: the in-use count drops, and the idle count is brought up to
    /// date (a check-in may have closed handles, and a check-out taken one).
    func handleReturned() {
        guard let idleHandles else { return }
        handlesInUseMeter.decrement()
        let idle = idleHandles()
        let previous = reportedIdle.exchange(idle, ordering: .relaxed)
        if idle > previous {
            idleHandlesMeter.increment(by: Double(idle - previous))
        } else if idle < previous {
            idleHandlesMeter.decrement(by: Double(previous - idle))
        }
    }

    /// An open circuit refused a send to `address`:`port`.
    func circuitRefused(address: String, port: Int) {
        Counter(label: Self.circuitRefusalsLabel,
                dimensions: [(TelemetryNames.serverAddress, address), (TelemetryNames.serverPort, String(port))],
                factory: factory).increment()
    }

    /// Records one finished send.
    func record(_ outcome: SendOutcome, nanoseconds: UInt64, bytesSent: Int64, bytesReceived: Int64) {
        var dimensions = outcome.target.dimensions
        if let status = outcome.statusCode { dimensions.append((TelemetryNames.statusCode, String(status))) }
        if let errorType = outcome.errorType { dimensions.append((TelemetryNames.errorType, errorType)) }
        CoreMetrics.Timer(label: Self.durationLabel, dimensions: dimensions, factory: factory)
            .recordNanoseconds(Int64(clamping: nanoseconds))
        let target = outcome.target.dimensions
        Counter(label: Self.sentBytesLabel, dimensions: target, factory: factory).increment(by: bytesSent)
        Counter(label: Self.receivedBytesLabel, dimensions: target, factory: factory).increment(by: bytesReceived)
    }
}

extension Session {
    /// The tracer and metrics this session's sends report to, settled once.
    var telemetry: SessionTelemetry { features.telemetry }
}
