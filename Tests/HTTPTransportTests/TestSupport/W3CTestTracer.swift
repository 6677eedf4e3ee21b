import Foundation
import InMemoryTracing
import Tracing

/// An in-memory tracer that propagates like a W3C Trace Context tracer: random 32- and 16-digit
/// hex ids, injected as `traceparent: 00-<trace id>-<span id>-01`. (`InMemoryTracer` itself
/// injects `in-memory-trace-id` and `in-memory-span-id`.)
struct W3CTestTracer: Tracer {
    let recorded = InMemoryTracer(idGenerator: .init(
        nextTraceID: { W3CTestTracer.hex(digits: 32) },
        nextSpanID: { W3CTestTracer.hex(digits: 16) }))

    var finishedSpans: [FinishedInMemorySpan] { recorded.finishedSpans }

    static func hex(digits: Int) -> String {
        (0..<digits / 16).map { _ in
            let hex = String(UInt64.random(in: 1 ... .max), radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        recorded.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function,
                           file: fileID, line: line)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Carrier == Inject.Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Carrier == Extract.Carrier {}
}
