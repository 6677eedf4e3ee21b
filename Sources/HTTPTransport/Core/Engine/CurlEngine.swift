import CCurl
import Foundation

/// The default engine: one transfer on one pooled libcurl easy handle. Handles are reused, so
/// keep-alive connections survive across sends and threads; DNS and TLS sessions are shared
/// between the session's handles (never the connection cache, which libcurl 7.88 does not share
/// thread-safely). Redirects are left to the pipeline.
///
/// A send reads top to bottom: `prepare` (check the request, take a handle, describe and apply
/// its options), `perform`, `response`, `finish` (the handle goes back to the pool only when its
/// transfer succeeded).
final class CurlEngine: HTTPEngine, PoolStatistics {
    let security: Security
    let configuration: Session.Configuration
    /// The session-level connection options, checked once (ConnectionOptions.swift).
    let connectionOptions: ConnectionOptions
    /// `configuration.connectTimeout` as libcurl takes it.
    private let connectTimeoutMilliseconds: Int
    private let pool: HandlePool
    private let share: CurlShare?
    /// The session's transfer loop, for async sends, fan-outs and streams (CurlEngine+Loop.swift).
    let loop: TransferLoop?
    let disabledHostsWarned = Locked<Set<String>>([])

    init(security: Security, configuration: Session.Configuration) {
        ccurl_global_init()
        self.security = security
        self.configuration = configuration
        connectionOptions = ConnectionOptions(configuration, trustedRoots: security.trustedRootCertificates)
        connectTimeoutMilliseconds = Self.milliseconds(configuration.connectTimeout)
        pool = HandlePool(maxIdle: configuration.maxIdleHandles, idleTimeout: configuration.idleHandleTimeout)
        // Certificate-digest pins are checked by a handshake callback that a resumed TLS
        // session would skip, so such sessions share no TLS sessions.
        share = CurlShare(shareTLSSessions: !security.needsHandshakeCallback)
        loop = TransferLoop(maxHostConnections: configuration.maxConnectionsPerHost,
                            multiplexing: configuration.multiplexing,
                            keptConnections: configuration.maxConcurrentTransfers, share: share)
    }

    deinit {
        // The loop's connections and the handles refer to the share: close them before it goes.
        loop?.stop()
        pool.drain()
    }

    var idleHandleCount: Int { pool.idleCount }

    func execute(_ request: RawRequest, control: TransferControl) -> RawResponse {
        let transfer: CurlTransfer
        do {
            transfer = try prepare(request, control: control)
        } catch {
            return RawResponse(request: request, error: error)
        }
        let code = perform(transfer, request: request)
        defer { finish(transfer, code: code) }
        return withSentHead(response(to: request, of: transfer, code: code), of: transfer)
    }

    // MARK: Steps

    /// Checks the request, takes a handle, and sets it up for this transfer.
    func prepare(_ request: RawRequest, control: TransferControl) throws(HTTPTransportError) -> CurlTransfer {
        let url = request.urlString
        try WireHeaders.validate(request.headers, url: url)
        // One decision, proxy or direct, for the address policy and for libcurl alike (nil: the
        // session leaves it to libcurl and the environment).
        var proxy: String?
        if connectionOptions.decidesProxy {
            let route = connectionOptions.route(for: request)
            // A send an address policy cannot check (it would go through a proxy) is refused.
            if let refusal = connectionOptions.refusal(for: request, route: route) { throw refusal }
            proxy = route.curlValue
        }
        let handle: EasyHandle
        // (A WebSocket's handle keeps its connection for the socket: never a pooled one.)
        if request.webSocket == nil, let idle = pool.checkOut() { handle = idle } else { handle = try makeHandle(url: url) }
        let transfer = CurlTransfer(url: url, handle: handle, control: control, maxResponseSize: configuration.maxResponseSize)
        // The handle holds the options of the request it last sent: the same plain request again
        // (see `TransferOptions.Inputs`) needs them neither made nor compared.
        if let held = handle.appliedInputs, held.match(request, url: url, control: control, proxy: proxy) {
            _ = handle.beginTransfer()
            if handle.applied.refusesResend { transfer.state.mayResend = false }
        } else {
            // A handle whose set-up fails is not checked back in: `transfer` closes it.
            var options = try describe(request, transfer)
            if proxy != nil { options.proxy = proxy }
            if connectionOptions.forbidsReuse(of: request.url) { options.forbidsReuse = true }
            do {
                try options.apply(to: handle, userAgent: configuration.userAgent)
            } catch {
                throw HTTPTransportError(code: .other, message: error.message, url: url, curlCode: Int(error.code.rawValue))
            }
            handle.appliedInputs = options.ownsNoTransferResource
                ? TransferOptions.Inputs(request, url: url, control: control, proxy: proxy) : nil
            if request.webSocket != nil { try upgradesToWebSocket(handle, url: url) }
        }
        handle.transferSlot.pointee.state = transfer.state.opaque
        if request.keepsSentHead { ccurl_sent_head_clear(handle.sentHead) }
        return transfer
    }

    /// Every per-transfer option, as one value (see `TransferOptions`).
    private func describe(_ request: RawRequest, _ transfer: CurlTransfer) throws(HTTPTransportError) -> TransferOptions {
        let number = transfer.handle.beginTransfer()
        var headers = request.headers
        if let download = request.download {
            let file = DownloadFile(download, sessionMaxSize: configuration.maxResponseSize)
            try file.prepare(headers: &headers, url: transfer.url)
            transfer.state.sink = file
        }
        let refusesResend = !request.mayBeResentByLibcurl
        if refusesResend { transfer.state.mayResend = false }
        if let consumer = request.bodyConsumer {
            transfer.state.sink = consumer.makeSink(for: request, configuration: configuration)
        }
        // (A sink other than memory has its own limits: a download's, or none for a stream.)
        let capsBody = transfer.state.sink === transfer.state.memory
        let (tls, pinCheck) = try tlsOption(for: transfer.url, transfer: number)
        if let pinCheck { transfer.state.pinCheck = pinCheck }
        let timeout = Self.milliseconds(request.timeout)
        let body = try bodyOption(for: request, transfer, number: number)
        return TransferOptions(
            url: transfer.url,
            // A stream may last for hours: a paced sink's time-outs are the transfer loop's (PacedBodySink).
            timeoutMilliseconds: transfer.state.pacedSink == nil ? timeout : 0,
            connectTimeoutMilliseconds: min(timeout, connectTimeoutMilliseconds),
            maxFileSize: capsBody ? configuration.maxResponseSize : 0,
            body: body,
            headers: HeaderListSource(headers: headers, turnsOffExpect: body.mayExpectContinue(headers: headers)),
            reportsProgress: transfer.state.control.needsProgressCallback,
            tls: tls, refusesResend: refusesResend,
            // The engine decodes bodies itself (ContentDecoder), a stream's no faster than it is read.
            decodesContent: false, keepsSentHead: request.keepsSentHead)
    }

    /// Runs the transfer on this thread, with the driver it needs (`TransferDriver`).
    private func perform(_ transfer: CurlTransfer, request: RawRequest) -> CURLcode {
        transfer.handle.connectionContext.beginTransfer()
        return Self.driver(for: transfer.state).perform(transfer, request: request, engine: self)
    }

    /// The response (or the failure) the transfer ended with.
    func response(to request: RawRequest, of transfer: CurlTransfer, code: CURLcode) -> RawResponse {
        let state = transfer.state
        let metrics = collectMetrics(transfer.handle, sentBody: request.sendsBody, receivedStatus: state.statusCode != nil)
        // (A stream's error body cut at its limit ends the transfer early, as intended.)
        guard code == CURLE_OK || state.memory.cutShort, state.storedError == nil else {
            state.sink.abandon()
            let error = CurlErrorMapping.failure(of: transfer, code: code, request: request,
                                                 connectionOptions: connectionOptions)
            return failed(request, transfer, error, metrics: metrics, body: state.hasBody ? state.takeBody() : nil)
        }
        guard state.headersComplete else {
            state.sink.abandon()
            return failed(request, transfer, HTTPTransportError(
                code: .badResponse, message: "The server closed the connection in the middle of the response headers.",
                url: transfer.url), metrics: metrics)
        }
        if let error = state.unfinishedDecoding() { return failed(request, transfer, error, metrics: metrics) }
        if state.control.progress != nil {
            _ = state.progress(downloadTotal: metrics.bytesReceived, downloadNow: metrics.bytesReceived,
                               uploadTotal: metrics.bytesSent, uploadNow: metrics.bytesSent, final: true)
        }
        let statusCode = state.statusCode.map(HTTPStatusCode.init(rawValue:))
        switch state.sink.complete(state: state) {
        case .inMemory:
            return RawResponse(request: request, statusCode: statusCode, headers: state.headers, data: state.takeBody(),
                               metrics: metrics)
        case .delivered:
            return RawResponse(request: request, statusCode: statusCode, headers: state.headers, metrics: metrics)
        case .file(let file):
            return RawResponse(request: request, statusCode: statusCode, headers: state.headers, metrics: metrics, fileURL: file)
        case .failed(let error):
            return failed(request, transfer, error, metrics: metrics)
        }
    }

    private func failed(_ request: RawRequest, _ transfer: CurlTransfer, _ error: HTTPTransportError,
                        metrics: TransferMetrics, body: Data? = nil) -> RawResponse {
        let statusCode = transfer.state.statusCode.map(HTTPStatusCode.init(rawValue:))
        let headers = transfer.state.headers
        var error = error
        // (A proxy's refusal of a tunnel carries the proxy's status: no response arrived.)
        error.httpStatusCode = statusCode ?? error.httpStatusCode
        error.responseHeaders = headers
        if let body { error.responseBodyData = body }
        return RawResponse(request: request, statusCode: statusCode, headers: headers, error: error,
                           metrics: metrics)
    }

    /// A handle goes back to the pool only after a transfer that succeeded: a failed one may
    /// leave libcurl state behind (a receive buffer after a failed name lookup makes later
    /// option changes fail), and rarely holds a live connection anyway.
    ///
    /// The handle forgets the transfer's state first, on the thread that still owns it: once
    /// checked in, another thread may take the handle and point it at its own transfer.
    func finish(_ transfer: CurlTransfer, code: CURLcode) {
        transfer.handle.transferSlot.pointee.state = nil
        transfer.state.end()
        if code == CURLE_OK { pool.checkIn(transfer.handle) }
    }

    // MARK: Handles

    /// A new handle with the options that do not depend on the request, set once.
    private func makeHandle(url: String) throws(HTTPTransportError) -> EasyHandle {
        guard let handle = EasyHandle() else {
            throw HTTPTransportError(code: .other, message: "libcurl could not create an easy handle.", url: url)
        }
        do {
            try handle.set(CURLOPT_NOSIGNAL, true)
            try handle.set(CURLOPT_PROTOCOLS_STR, "http,https")
            // Set once, never again: libcurl refuses it while an earlier transfer's buffer exists.
            try handle.set(CURLOPT_BUFFERSIZE, Self.receiveBufferSize)
            try handle.set(CURLOPT_ACCEPT_ENCODING, "")
            try handle.set(CURLOPT_TCP_KEEPALIVE, true)
            try handle.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, true)
            if let share { try handle.check(ccurl_setopt_share(handle.curl, share.handle), CURLOPT_SHARE) }
            try handle.check(ccurl_set_callbacks(handle.curl, ccurl_write_callback, ccurl_header_callback, curlReadCallback,
                                                 curlSeekCallback, curlProgressCallback), CURLOPT_WRITEFUNCTION)
            try setTrustStore(on: handle)
        } catch {
            throw HTTPTransportError(code: .other, message: error.message, url: url, curlCode: Int(error.code.rawValue))
        }
        // Proxy, HTTP version, stall time-out, Unix socket, DNS overrides, IP version, address check.
        do {
            try connectionOptions.apply(to: handle, context: handle.connectionContext)
        } catch let error as HTTPTransportError {
            var error = error
            error.url = url
            throw error
        } catch let error as EngineSetupError {
            throw HTTPTransportError(code: .other, message: error.message, url: url, curlCode: Int(error.code.rawValue))
        } catch {
            throw HTTPTransportError(code: .other, message: "\(error)", url: url)
        }
        return handle
    }

    /// The session's private roots and client certificate.
    private func setTrustStore(on handle: EasyHandle) throws(EngineSetupError) {
        if let roots = security.trustedRootCertificates {
            try handle.set(CURLOPT_CAINFO, roots.path)
            // Debian's libcurl also trusts its default CA directory (/etc/ssl/certs): the bundle
            // replaces the system roots, so that directory is switched off.
            try handle.set(CURLOPT_CAPATH, nil as String?)
        }
        guard let client = security.clientCertificate else { return }
        switch client.kind {
        case .pem(let certificate, let key):
            try handle.set(CURLOPT_SSLCERT, certificate.path)
            try handle.set(CURLOPT_SSLCERTTYPE, "PEM")
            try handle.set(CURLOPT_SSLKEY, key.path)
            try handle.set(CURLOPT_SSLKEYTYPE, "PEM")
        case .pkcs12(let bundle):
            try handle.set(CURLOPT_SSLCERT, bundle.path)
            try handle.set(CURLOPT_SSLCERTTYPE, "P12")
        }
        if let password = client.password { try handle.set(CURLOPT_KEYPASSWD, password) }
    }

    /// libcurl's receive buffer for each transfer: larger than its 16 KiB default, for fewer
    /// reads and callbacks on large bodies.
    static let receiveBufferSize = 64 * 1024

    /// Whole milliseconds for libcurl: at least 1 (libcurl reads 0 as "no limit"), at most about
    /// 30 years (an infinite time-out must not overflow). The same limit as `Hop.timeLimit`,
    /// which the exchange's deadline is computed from.
    static func milliseconds(_ seconds: TimeInterval) -> Int {
        guard seconds.isFinite else { return seconds > 0 ? 1_000_000_000_000 : 1 }
        return Int((min(max(seconds, 0.001), 1_000_000_000) * 1000).rounded(.up))
    }
}

/// One transfer in progress: its URL, its handle, and the state libcurl's callbacks write to
/// (which also owns the transfer's C resources). The handle is closed with it unless
/// `CurlEngine.finish` put it back into the pool.
struct CurlTransfer {
    let url: String
    let handle: EasyHandle
    let state: TransferState

    init(url: String, handle: EasyHandle, control: TransferControl, maxResponseSize: Int64) {
        self.url = url
        self.handle = handle
        state = handle.transferState
        state.begin(control: control, requestURL: url, maxResponseSize: maxResponseSize)
    }
}

/// The session's libcurl share object (DNS cache, and TLS sessions unless disabled).
final class CurlShare: @unchecked Sendable {
    private let share: OpaquePointer

    init?(shareTLSSessions: Bool) {
        guard let share = ccurl_share_create(shareTLSSessions ? 1 : 0) else { return nil }
        self.share = share
    }

    var handle: UnsafeMutableRawPointer? { ccurl_share_handle(share) }

    deinit { ccurl_share_destroy(share) }
}
