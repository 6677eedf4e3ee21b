import Dispatch
import Foundation
import Tracing

/// The telemetry of one send, made when the send starts (`SessionTelemetry.observer()`), while
/// telemetry is on; the send tells it what happens through `SendEvents`. Used by the sending
/// thread only.
///
/// Each hop (first request, redirect, retry) is one client span named after its method, a
/// child of the caller's `ServiceContext`. Without one, the first hop's span is the root and
/// later hops are its children, so a send is always one trace, and its trace id (the
/// request's `requestID`) finds all of it.
final class SendRecorder: SendObserver {
    private let tracer: (any Tracer)?
    private let metrics: HTTPClientMetrics?
    /// The caller's context (nil or empty: there is no span around the send).
    private let callerContext: ServiceContext?
    /// The first hop's span context: the parent of later hops when the caller has none.
    private var firstHopContext: ServiceContext?
    private var span: (any Span)?
    /// The fields the tracer injected for the current hop, set on its request after the interceptors.
    private var propagation: [(String, String)] = []
    /// The current hop's method and URL as its span was started with them.
    private var spanMethod: HTTPRequest.HTTPMethod = .get
    private var spanURL: URL?
    private var hops = 0
    private let started: UInt64
    private var target: SendTarget?
    private var bytesSent: Int64 = 0
    private var bytesReceived: Int64 = 0

    init(_ telemetry: SessionTelemetry) {
        tracer = telemetry.tracer
        metrics = telemetry.metrics
        if tracer != nil, let context = ServiceContext.current, !context.isEmpty {
            callerContext = context
        } else {
            callerContext = nil
        }
        started = metrics != nil ? DispatchTime.now().uptimeNanoseconds : 0
    }

    func hopStarted(_ request: inout RawRequest) {
        if target == nil {
            target = SendTarget(request)
            metrics?.sendStarted()
        }
        defer { hops += 1 }
        guard let tracer else { return }
        endSpan()  // (only open here if the pipeline skipped `hopEnded`: never leave one unended)
        let parent = callerContext ?? firstHopContext ?? .topLevel
        let span = tracer.startSpan(request.method.rawValue, context: parent, ofKind: .client)
        if firstHopContext == nil { firstHopContext = span.context }
        self.span = span
        setRequestAttributes(request, on: span)
        if hops > 0 { span.attributes[TelemetryNames.resendCount] = hops }
        propagation.removeAll(keepingCapacity: true)
        tracer.inject(span.context, into: &propagation, using: PropagationInjector())
        if let traceID = TraceIDReader.traceID(in: propagation) { request.requestID = traceID }
    }

    func hopWillSend(_ request: inout RawRequest) {
        metrics?.handleCheckedOut()
        guard let span else { return }
        // An interceptor may have changed where the request goes.
        if request.method != spanMethod || request.url != spanURL {
            span.operationName = request.method.rawValue
            setRequestAttributes(request, on: span)
        }
        for (name, value) in propagation { request.setValue(value, forHTTPHeaderField: name) }
    }

    func hopEnded(_ response: RawResponse) {
        metrics?.handleReturned()
        bytesSent += response.metrics.bytesSent
        bytesReceived += response.metrics.bytesReceived
        guard let span else { return }
        var attributes = span.attributes
        if let status = response.statusCode?.rawValue { attributes[TelemetryNames.statusCode] = status }
        if !response.metrics.httpVersion.isEmpty {
            attributes[TelemetryNames.protocolVersion] = response.metrics.httpVersion
        }
        let errorType: String?
        if let error = response.error {
            errorType = TelemetryNames.errorType(error)
        } else if let status = response.statusCode?.rawValue, status >= 400 {
            errorType = String(status)
        } else {
            errorType = nil
        }
        if let errorType { attributes[TelemetryNames.errorType] = errorType }
        span.attributes = attributes
        if errorType != nil { span.setStatus(SpanStatus(code: .error)) }
        endSpan()
    }

    func hopFailed(_ error: HTTPTransportError) {
        guard let span else { return }
        span.attributes[TelemetryNames.errorType] = TelemetryNames.errorType(error)
        span.setStatus(SpanStatus(code: .error))
        endSpan()
    }

    func originWaited(seconds: Double, reason: String) {
        span?.addEvent(SpanEvent(name: TelemetryNames.originWaitEvent, attributes: [
            TelemetryNames.waitReason: .string(reason), TelemetryNames.waitDuration: .double(seconds),
        ]))
    }

    func circuitRefused(host: String, port: Int) {
        metrics?.circuitRefused(address: host, port: port)
        span?.addEvent(SpanEvent(name: TelemetryNames.circuitRefusedEvent))
    }

    func sendEnded(_ result: HTTPTransport.Result) {
        endSpan()
        // A send that failed before it had a request (invalid URL, encoding) went nowhere: no metrics.
        guard let metrics, let target else { return }
        metrics.sendEnded()
        let elapsed = DispatchTime.now().uptimeNanoseconds &- started
        metrics.record(SendOutcome(target: target, result: result), nanoseconds: elapsed,
                       bytesSent: bytesSent, bytesReceived: bytesReceived)
    }

    private func setRequestAttributes(_ request: RawRequest, on span: any Span) {
        spanMethod = request.method
        spanURL = request.url
        span.updateAttributes { attributes in
            attributes[TelemetryNames.method] = request.method.rawValue
            attributes[TelemetryNames.urlFull] = LogRedaction.default.redactedURL(request.url)
            attributes[TelemetryNames.serverAddress] = request.url.host ?? ""
            attributes[TelemetryNames.serverPort] = TelemetryNames.port(of: request.url)
        }
    }

    private func endSpan() {
        span?.end()
        span = nil
    }
}
