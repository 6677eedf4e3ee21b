import CCurl
import Foundation

/// libcurl's engine in an async send (`HTTPEngine.executeAsync`): the transfer runs on the
/// session's `TransferLoop` instead of a thread. The steps are the blocking `execute`'s
/// (`prepare`, then `response` and `finish`); only the middle one differs, and the awaiting
/// task holds no thread meanwhile.
extension CurlEngine {
    func executeAsync(_ request: RawRequest, control: TransferControl) async -> RawResponse {
        await exchangeOnLoop(request, control: control)
    }

    /// `executeAsync`, where its caller runs (a session's send calls it directly, without the
    /// executor check of entering a nonisolated function).
    nonisolated(nonsending) func exchangeOnLoop(_ request: RawRequest, control: TransferControl) async -> RawResponse {
        guard let loop else { return await executeOnThread(request, control: control) }
        let transfer: CurlTransfer
        // The loop ends a cancelled transfer itself (`TransferLoop.perform`).
        var control = control
        control.runnerStopsOnCancellation = true
        do {
            transfer = try prepare(request, control: control)
        } catch {
            return RawResponse(request: request, error: error)
        }
        let waits = waitsToMultiplex(request.url)
        do {
            try transfer.handle.set(CURLOPT_PIPEWAIT, waits)
        } catch {
            finish(transfer, code: CURLE_FAILED_INIT)
            return RawResponse(request: request, error: HTTPTransportError(
                code: .other, message: error.message, url: request.url.absoluteString, curlCode: Int(error.code.rawValue)))
        }
        transfer.handle.connectionContext.beginTransfer()
        let code = await loop.perform(loopTransfer(transfer, of: request, waitsToMultiplex: waits))
        if request.webSocket != nil { return webSocketResponse(to: request, of: transfer, code: code) }
        defer { finish(transfer, code: code) }
        return withSentHead(response(to: request, of: transfer, code: code), of: transfer)
    }

    /// `transfer` as the loop runs it. Without a per-host limit, the loop admits one connection's
    /// worth of transfers that wait to multiplex per origin (MultiplexGate); a stream, which may
    /// stay open for hours, goes in at once.
    /// (Out of line: a clock's instant has a size known only at run time, and each such value
    /// in an async function's frame costs every send a task allocation.)
    @inline(never)
    private func loopTransfer(_ transfer: CurlTransfer, of request: RawRequest, waitsToMultiplex waits: Bool) -> LoopTransfer {
        let isStream = transfer.state.pacedSink != nil
        let gated = waits && !isStream && request.webSocket == nil && configuration.maxConnectionsPerHost == 0
        return LoopTransfer(handle: transfer.handle, state: transfer.state, request: request, engine: isStream ? self : nil,
                            multiplexOrigin: gated ? MultiplexGate.origin(of: request.url) : nil,
                            deadline: gated ? .now + .milliseconds(Self.milliseconds(request.timeout)) : nil)
    }

    /// Whether a transfer waits for a connection being opened to its origin, in case it can
    /// share it (HTTP/2), rather than open another: only where HTTP/2 is possible, since over
    /// HTTP/1.1 libcurl learns that only from the first response, which would delay the rest.
    private func waitsToMultiplex(_ url: URL) -> Bool {
        guard configuration.multiplexing else { return false }
        switch configuration.httpVersion {
        case .http1_1: return false
        case .http2PriorKnowledge: return true
        case .automatic:
            // (Lower-cased only when it is not already: a String made per send otherwise.)
            guard let scheme = url.scheme, scheme.utf8.count == 5 else { return false }
            return scheme == "https" || scheme.lowercased() == "https"
        }
    }
}
