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
        let waits = waitsToMultiplex(request)
        do {
            try transfer.handle.set(CURLOPT_PIPEWAIT, waits)
        } catch {
            finish(transfer, code: CURLE_FAILED_INIT)
            return RawResponse(request: request, error: HTTPTransportError(
                code: .other, message: error.message, url: request.url.absoluteString, curlCode: Int(error.code.rawValue)))
        }
        transfer.handle.connectionContext.beginTransfer()
        let code = await loop.perform(loopTransfer(transfer, of: request, on: loop, waitsToMultiplex: waits))
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
    private func loopTransfer(_ transfer: CurlTransfer, of request: RawRequest, on loop: TransferLoop,
                              waitsToMultiplex waits: Bool) -> LoopTransfer {
        let isStream = transfer.state.pacedSink != nil
        let gated = waits && !isStream && request.webSocket == nil && configuration.maxConnectionsPerHost == 0
        return LoopTransfer(handle: transfer.handle, state: transfer.state, request: request, engine: isStream ? self : nil,
                            multiplexOrigin: gated ? MultiplexGate.origin(of: request.url) : nil,
                            deadline: gated ? .now + .milliseconds(Self.milliseconds(request.timeout)) : nil, loop: loop)
    }

    /// Whether a transfer waits for a connection being opened to its origin, in case it can
    /// share it (HTTP/2), rather than open another: only where HTTP/2 is possible, since over
    /// HTTP/1.1 libcurl learns that only from the first response, which would delay the rest.
    private func waitsToMultiplex(_ request: RawRequest) -> Bool {
        guard configuration.multiplexing else { return false }
        switch configuration.httpVersion {
        case .http1_1: return false
        case .http2PriorKnowledge: return true
        case .automatic:
            // (The URL's kept text read where there is one: `URL.scheme` parses the URL's
            // components again, ~0.45k instructions per send.)
            if let text = request.urlText { return Self.startsWithHTTPSScheme(text) }
            // (Lower-cased only when it is not already: a String made per send otherwise.)
            guard let scheme = request.url.scheme, scheme.utf8.count == 5 else { return false }
            return scheme == "https" || scheme.lowercased() == "https"
        }
    }

    /// Whether `text`, a URL's absolute string, begins with the scheme `https:` in any case.
    static func startsWithHTTPSScheme(_ text: String) -> Bool {
        var text = text  // (`withUTF8` reads a native string's bytes in place)
        return text.withUTF8 { bytes in
            guard bytes.count >= 6, bytes[5] == UInt8(ascii: ":") else { return false }
            // (An ASCII letter's upper case differs from its lower case by 0x20 alone.)
            return bytes[0] | 0x20 == UInt8(ascii: "h") && bytes[1] | 0x20 == UInt8(ascii: "t") && bytes[2] | 0x20 == UInt8(ascii: "t")
                && bytes[3] | 0x20 == UInt8(ascii: "p") && bytes[4] | 0x20 == UInt8(ascii: "s")
        }
    }
}
