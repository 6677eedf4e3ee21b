import Foundation

/// How a transport sends: the request resolved into its wire form, then handed down one list
/// of steps (`steps`, built in `Session`, DESIGN §3):
///
///     telemetry of the send → retry → hops (request interceptors, hop rules, redirects,
///     validation, response interceptors; per hop:) → cache → per-origin limits → engine
///
/// and the response made the `Result`. What every step reads of the transport and the
/// request (the session, the interceptors, the rules and the list) is this object, made once
/// per transport and shared by its sends (`HTTPTransport.pipeline`); a request with
/// interceptors or a session of its own gets one of its own (`of(_:on:)`). What belongs to one
/// send (its controls and telemetry) travels in its context (`HTTPSendContext`); `SendChain`
/// runs the steps, blocking or async. Below are the pieces
/// of the hop step that only the pipeline needs (resolve, intercept, follow the redirect,
/// validate).
final class SendPipeline: Sendable {
    let session: Session
    /// The request's own interceptors, its base's, then the transport's.
    let requestInterceptors: [any HTTPRequestInterceptor]
    /// The request's interceptors, then the transport's.
    let responseInterceptors: [any HTTPResponseInterceptor]
    /// Each response interceptor's `interceptsSuccesses`, read once (a success skips those
    /// that say `false` without touching them).
    private let interceptsSuccesses: [Bool]
    /// Whether a status other than 2xx is a failure (`HTTPTransport.useDefaultValidation`).
    let validatesStatus: Bool
    /// The steps a send walks, top to bottom (`steps(of:retrier:)`, built by the transport).
    let steps: [any SendStep]
    /// Whether a response interceptor wants the request head as sent (`RecordsSentRequestHead`):
    /// the engine step then asks the engine for it.
    let keepsSentHead: Bool
    /// Whether no step of a send can block its thread: no request interceptor, only response
    /// interceptors of this library that only compute (`RunsWithoutBlocking`), and only the hop
    /// step (no telemetry, retry, cache, per-origin limits or user steps, whose parts may wait). An async send of such a pipeline runs its steps on the caller's
    /// executor instead of the session's (the transfer itself is the loop's either way): the
    /// hop there and back cost a third of an async GET's CPU in throughput.sh.
    let runsWithoutBlocking: Bool
    /// Where a blocking send enters the steps: below the transfer gate's (`TransferGateStep`),
    /// which only async sends, fan-out requests and streams take (and of those, only the ones
    /// that must wait for a place: the others start here too, `runAsync`).
    let blockingStart: Int
    /// Whether a blocking send's only step is the hop step (no telemetry, retry, cache,
    /// per-origin limits or user steps): it then runs `HopStep.sendDirectly`, not the chain.
    let onlyHops: Bool

    /// A transport's pipeline.
    init(session: Session, requestInterceptors: [any HTTPRequestInterceptor],
         responseInterceptors: [any HTTPResponseInterceptor], validatesStatus: Bool, steps: [any SendStep]) {
        self.session = session
        self.requestInterceptors = requestInterceptors
        self.responseInterceptors = responseInterceptors
        interceptsSuccesses = responseInterceptors.map(\.interceptsSuccesses)
        keepsSentHead = responseInterceptors.contains { $0 is any RecordsSentRequestHead }
        self.validatesStatus = validatesStatus
        self.steps = steps
        runsWithoutBlocking = requestInterceptors.isEmpty
            && responseInterceptors.allSatisfy { $0 is any RunsWithoutBlocking }
            && steps.allSatisfy { $0 is HopStep || $0 is TransferGateStep }
        blockingStart = steps.first is TransferGateStep ? 1 : 0
        onlyHops = steps.count == blockingStart + 1 && steps.last is HopStep
    }

    /// The pipeline of an exchange the session makes by itself (a cache's background
    /// revalidation): no interceptors, no retrier; `steps`, the session's steps below the cache.
    init(session: Session, steps: [any SendStep]) {
        self.session = session
        self.steps = steps
        requestInterceptors = []
        responseInterceptors = []
        interceptsSuccesses = []
        keepsSentHead = false
        validatesStatus = false
        runsWithoutBlocking = false
        blockingStart = steps.first is TransferGateStep ? 1 : 0
        onlyHops = false
    }

    /// The pipeline that sends `request` through `transport`: the transport's own, unless the
    /// request brings interceptors or a session of its own (they come first, then the transport's).
    static func of(_ request: borrowing some HTTPRequestEnvelope, on transport: HTTPTransport) -> SendPipeline {
        if request.requestInterceptors.isEmpty, request.responseInterceptors.isEmpty,
           request.session.map({ $0 === transport.session }) ?? true {
            return transport.pipeline
        }
        return SendPipeline(session: request.session ?? transport.session,
                            requestInterceptors: request.requestInterceptors + transport.requestInterceptors,
                            responseInterceptors: request.responseInterceptors + transport.responseInterceptors,
                            validatesStatus: transport.useDefaultValidation,
                            steps: steps(of: request.session ?? transport.session, retrier: transport.retrier))
    }

    /// Sends `request` on the calling thread: resolves it, then walks the steps.
    func run(_ request: some HTTPRequestEnvelope, control: TransferControl) -> HTTPTransport.Result {
        let resolved: RawRequest
        do { resolved = try resolve(request) } catch { return .failure(error: error) }
        let context = context(control)
        var response = onlyHops ? HopStep.sendDirectly(resolved, context: context)
            : SendChain(context: context).send(resolved, from: blockingStart)
        return result(of: &response)
    }

    /// The same without holding a thread while it waits: the exchange is awaited on the
    /// session's transfer loop, the back-off between retries and an origin's turn are task
    /// sleeps, and the steps between run in the awaiting task, never on the loop's thread.
    /// `place`: how it takes its place among the session's `maxConcurrentTransfers`
    /// (`TransferGateStep`; a place `.held` is given back however the send ends).
    nonisolated(nonsending) func runAsync(_ request: some HTTPRequestEnvelope, control: TransferControl,
                                          place: TransferPlace) async -> HTTPTransport.Result {
        let resolved: RawRequest
        do { resolved = try resolve(request) } catch {
            if case .held = place { session.transferGate.leave() }
            return .failure(error: error)
        }
        // A send the gate lets pass at once starts below its step, as a blocking one does, and
        // gives its place back here: the step's frame and a level of the chain cost an async
        // GET ~1k instructions of task allocation (the step is there for the sends that wait).
        if blockingStart == 1, let holdsPlace = TransferGateStep.passesAtOnce(place, at: session.transferGate) {
            var response = onlyHops ? await HopStep.sendDirectly(resolved, context: context(control))
                : await SendChain(context: context(control)).send(resolved, from: 1)
            if holdsPlace { TransferGateStep.leave(session.transferGate, body: resolved.bodyConsumer) }
            return result(of: &response)
        }
        var response = await SendChain(context: context(control, place: place)).send(resolved)
        return result(of: &response)
    }

    /// What belongs to a send that starts now: its controls and its events.
    private func context(_ control: TransferControl, place: TransferPlace = .none) -> HTTPSendContext {
        HTTPSendContext(pipeline: self, control: control, telemetry: session.sendEvents(), place: place)
    }

    // MARK: Steps

    /// Resolve: the request value in its wire form (base merged, URL parsed, parameters encoded).
    func resolve(_ request: some HTTPRequestEnvelope) throws(HTTPTransportError) -> RawRequest {
        do {
            var resolved = try request.resolve(endpoints: session.parsedEndpoints)
            // Which bodies stream follows from validation and redirects (StreamingBody.streams).
            if let consumer = resolved.bodyConsumer {
                resolved.bodyConsumer = consumer.forPipeline(validatesStatus: validatesStatus,
                                                             followsRedirects: session.configuration.maxRedirects > 0)
            }
            return resolved
        } catch {
            var error = error
            if error.url == nil { error.url = request.endpoint }
            throw error
        }
    }

    /// Intercept request: the hop's request through the request interceptors, within the hop
    /// rules (credentials stay with their origin, one deadline for the whole exchange).
    func intercept(_ hop: inout Hop, telemetry: SendEvents) throws(HTTPTransportError) -> RawRequest {
        if hop.redirects == 0 { hop.started = Hop.clock }
        var request = hop.request
        telemetry.hopStarted(&request)
        do {
            try hop.prepareForInterceptors(&request)
            try Self.intercept(&request, with: requestInterceptors)
            try hop.restrict(&request, credentialHeaders: session.configuration.credentialHeaders)
        } catch {
            telemetry.hopFailed(error)
            throw error
        }
        // The first hop's time-out, as its interceptors left it, sets the exchange's deadline.
        if hop.redirects == 0 { hop.firstTimeout = request.timeout }
        telemetry.hopWillSend(&request)
        return request
    }

    /// Follow redirect: the next hop, when the response is a redirect to follow. The redirect
    /// response passes the response interceptors first (its cookies are stored, it is logged);
    /// a redirect that must not be followed becomes the response's error.
    func followRedirect(_ response: inout RawResponse, from hop: Hop) -> Hop? {
        // (A WebSocket's handshake follows none: its 3xx fails validation.)
        guard response.request.webSocket == nil, let next = RedirectRule.nextRequest(after: hop.request, response: response,
                                                  allowsInsecureRedirects: session.configuration.allowsInsecureRedirects)
        else { return nil }
        let limit = session.configuration.maxRedirects
        if hop.redirects >= limit {
            // No redirects allowed: the 3xx response is the answer.
            if limit > 0 {
                response.error = HTTPTransportError(
                    code: .tooManyRedirects, message: "Stopped after \(hop.redirects) redirects (the session allows \(limit)).",
                    url: response.request.url.absoluteString, httpStatusCode: response.statusCode,
                    responseHeaders: response.headers, responseBodyData: response.data)
            }
            return nil
        }
        switch next {
        case .failure(let error):
            response.error = error
            return nil
        case .success(let request):
            var seen = response
            intercept(&seen)
            if seen.error != nil {
                response = seen
                return nil
            }
            return hop.next(request)
        }
    }

    /// Validate: by default, a status other than 2xx is an `.httpStatus` failure carrying the
    /// response; a response without a status is a `.badResponse`.
    func validate(_ response: inout RawResponse) {
        guard response.error == nil else { return }
        let request = response.request
        guard let status = response.statusCode else {
            response.error = HTTPTransportError(code: .badResponse, message: "No response status was received.",
                                                url: request.url.absoluteString)
            return
        }
        // A WebSocket's handshake succeeds with 101 alone, whatever the validation.
        let upgraded = request.webSocket.map { _ in status.rawValue == 101 }
        guard upgraded == false || (upgraded == nil && validatesStatus && !status.isSuccess) else { return }
        response.error = HTTPTransportError(
            code: .httpStatus,
            message: "The server answered \(status.rawValue) \(status.reasonPhrase) for \(request.method.rawValue) \(request.url.absoluteString).",
            url: request.url.absoluteString, httpStatusCode: status,
            responseHeaders: response.headers, responseBodyData: response.data)
    }

    /// Intercept response: the request's response interceptors, then the transport's.
    func intercept(_ response: inout RawResponse) {
        for index in responseInterceptors.indices where response.error != nil || interceptsSuccesses[index] {
            response = responseInterceptors[index].intercept(response: response)
        }
    }

    /// The `Result`: the response, or the failure the interceptors left.
    func result(of response: inout RawResponse) -> HTTPTransport.Result {
        if var error = response.error {
            if error.url == nil { error.url = response.request.url.absoluteString }
            return .failure(error: error)
        }
        guard let status = response.statusCode else {
            return .failure(error: HTTPTransportError(code: .badResponse, message: "No response status was received.",
                                                      url: response.request.url.absoluteString))
        }
        return .success(response: HTTPResponse(httpStatus: status, raw: response))
    }

    /// Runs the request interceptors in order; a throw ends the send (`.interceptorFailed`, or
    /// the interceptor's own `HTTPTransportError`).
    static func intercept(_ request: inout RawRequest, with interceptors: [any HTTPRequestInterceptor]) throws(HTTPTransportError) {
        for interceptor in interceptors {
            do {
                request = try interceptor.intercept(request: request)
            } catch let error as HTTPTransportError {
                var error = error
                if error.url == nil { error.url = request.url.absoluteString }
                throw error
            } catch {
                throw HTTPTransportError(
                    code: .interceptorFailed, message: "Request interceptor \(type(of: interceptor)) failed: \(error)",
                    url: request.url.absoluteString, underlyingError: error)
            }
        }
    }
}

/// A response interceptor of this library that only computes (no lock held for long, no file,
/// no network, no user code): an async send whose other steps cannot block either may run them
/// on the caller's executor (`SendPipeline.runsWithoutBlocking`).
protocol RunsWithoutBlocking {}

extension ClarifyErrorInterceptor: RunsWithoutBlocking {}
