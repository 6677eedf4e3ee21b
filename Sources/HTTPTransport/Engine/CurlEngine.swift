import CCurl
import Foundation

/// The default engine: one transfer on one pooled libcurl easy handle. Handles are reset and
/// reused, so keep-alive connections survive across sends and threads; DNS and TLS sessions are
/// shared between the session's handles (never the connection cache, which libcurl 7.88 does
/// not share thread-safely). Redirects are left to the pipeline.
final class CurlEngine: HTTPEngine {
    let security: Security
    let configuration: Session.Configuration
    /// The session-level connection options, checked once (ConnectionOptions.swift).
    let connectionOptions: ConnectionOptions
    private let pool: HandlePool
    private let share: CurlShare?
    let disabledHostsWarned = Locked<Set<String>>([])

    init(security: Security, configuration: Session.Configuration) {
        ccurl_global_init()
        self.security = security
        self.configuration = configuration
        connectionOptions = ConnectionOptions(configuration, trustedRoots: security.trustedRootCertificates)
        pool = HandlePool(maxIdle: configuration.maxIdleHandles, idleTimeout: configuration.idleHandleTimeout)
        // Certificate-digest pins are checked by a handshake callback that a resumed TLS
        // session would skip, so such sessions share no TLS sessions.
        share = CurlShare(shareTLSSessions: !security.needsHandshakeCallback)
    }

    deinit {
        // Handles refer to the share: close them before the share goes.
        pool.drain()
    }

    var idleHandleCount: Int { pool.idleCount }

    func execute(_ request: RawRequest, control: TransferControl) -> RawResponse {
        let url = request.url.absoluteString
        guard let handle = pool.checkOut() else {
            return RawResponse(request: request, error: HTTPTransportError(
                code: .other, message: "libcurl could not create an easy handle.", url: url))
        }
        let state = TransferState(maxResponseSize: configuration.maxResponseSize, control: control, requestURL: url)
        // Made by a full set-up only (a repeated one sets no MIME body and no pin check).
        var resources: TransferResources?
        var finishedCleanly = false
        defer {
            resources?.release()
            pool.checkIn(handle, warm: finishedCleanly)
        }

        // No entries: the standard policy, without looking at the host.
        let policy = security.certificates.isEmpty ? HostTrustPolicy() : security.matcher.policy(for: request.url.host ?? "")
        if let invalid = policy.invalidPin {
            return RawResponse(request: request, error: HTTPTransportError(
                code: .pinningFailed, message: "The pin configured for \(request.url.host ?? "") is invalid: \(invalid).",
                url: url))
        }

        // Connection options, per request: a send an address policy cannot check is refused.
        if let refusal = connectionOptions.refusal(for: request) {
            return RawResponse(request: request, error: refusal)
        }

        let setup = RepeatableSetup(request, url: url, control: control, policy: policy)
        do {
            if let setup, handle.repeatableSetup == setup {
                try configureRepeat(handle, request: request, url: url, state: state)
            } else {
                handle.reset()
                let fresh = TransferResources()
                resources = fresh
                try configure(handle, request: request, url: url, state: state, resources: fresh, policy: policy)
                handle.repeatableSetup = setup
            }
        } catch {
            handle.repeatableSetup = nil  // half set up: the next transfer starts from a reset
            switch error {
            case let error as HTTPTransportError:
                return RawResponse(request: request, error: error)
            case let error as EngineSetupError:
                return RawResponse(request: request, error: HTTPTransportError(
                    code: .other, message: error.message, url: url, curlCode: Int(error.code.rawValue)))
            default:
                return RawResponse(request: request, error: HTTPTransportError(code: .other, message: "\(error)", url: url))
            }
        }

        handle.connectionContext.beginTransfer()
        let code: CURLcode
        if let cancellation = control.cancellation {
            code = CancellableTransfer.perform(handle, cancellation: cancellation, state: state)
        } else {
            code = curl_easy_perform(handle.curl)
        }
        finishedCleanly = code == CURLE_OK
        let metrics = collectMetrics(handle)
        let statusCode = state.statusCode.map(HTTPStatusCode.init(rawValue:))
        // Each outcome builds its response in one initializer call (straight into the return
        // value: a response assembled in a variable is copied once more on the way out).
        func failed(_ error: HTTPTransportError, body: Data? = nil) -> RawResponse {
            let headers = state.headers
            var error = error
            // (A proxy's refusal of a tunnel carries the proxy's status: no response arrived.)
            error.httpStatusCode = statusCode ?? error.httpStatusCode
            error.responseHeaders = headers
            if let body { error.responseBodyData = body }
            return RawResponse(request: request, statusCode: statusCode, headers: headers, error: error, metrics: metrics)
        }

        if code == CURLE_OK && state.storedError == nil {
            guard state.headersComplete else {
                state.download?.abandon()
                return failed(HTTPTransportError(
                    code: .badResponse, message: "The server closed the connection in the middle of the response headers.",
                    url: url))
            }
            if control.progress != nil {
                _ = state.progress(downloadTotal: metrics.bytesReceived, downloadNow: metrics.bytesReceived,
                                   uploadTotal: metrics.bytesSent, uploadNow: metrics.bytesSent, final: true)
            }
            if let download = state.download, download.isWritingBody {
                if let problem = download.commit() {
                    return failed(HTTPTransportError(code: .fileIO, message: problem, url: url))
                }
                return RawResponse(request: request, statusCode: statusCode, headers: state.headers, metrics: metrics,
                                   fileURL: download.destination)
            }
            state.download?.abandon()
            return RawResponse(request: request, statusCode: statusCode, headers: state.headers, data: state.takeBody(),
                               metrics: metrics)
        }
        state.download?.abandon()
        let error = state.storedError
            ?? connectionOptions.failure(code: code, handle: handle, context: handle.connectionContext, request: request, url: url)
            ?? CurlErrorMapping.error(
            for: code, message: handle.errorMessage, url: url, host: request.url.host ?? "",
            pinCheck: resources?.pinCheck?.pointee)
        return failed(error, body: state.hasBody ? state.takeBody() : nil)
    }

    // MARK: Configuration of one transfer

    private func configure(_ handle: EasyHandle, request: RawRequest, url: String, state: TransferState,
                           resources: TransferResources, policy: HostTrustPolicy) throws {
        try handle.set(CURLOPT_NOSIGNAL, true)
        // Session-level options (proxy, HTTP version, stall time-out, Unix socket, DNS overrides,
        // IP version, address check): the new engine sets them once, when a handle is created.
        try connectionOptions.apply(to: handle, context: handle.connectionContext)
        try handle.set(CURLOPT_URL, url)
        try handle.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try handle.set(CURLOPT_ACCEPT_ENCODING, "")
        try handle.set(CURLOPT_TCP_KEEPALIVE, true)
        try handle.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, true)
        let timeoutMilliseconds = max(1, Int((request.timeout * 1000).rounded(.up)))
        try handle.set(CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
        try handle.set(CURLOPT_CONNECTTIMEOUT_MS,
                       min(timeoutMilliseconds, max(1, Int(configuration.connectTimeout * 1000))))
        if request.download == nil {
            try handle.set(CURLOPT_MAXFILESIZE_LARGE, offset: configuration.maxResponseSize)
        }
        // libcurl receives into a buffer it allocates for each transfer (16 KiB by default): a
        // larger one means fewer reads and callbacks on large bodies.
        try handle.set(CURLOPT_BUFFERSIZE, Self.receiveBufferSize)
        if let share { try handle.check(ccurl_setopt_share(handle.curl, share.handle), CURLOPT_SHARE) }

        // Callbacks
        try handle.check(ccurl_set_write_callback(handle.curl, curlWriteCallback, state.opaque), CURLOPT_WRITEFUNCTION)
        try handle.check(ccurl_set_header_callback(handle.curl, curlHeaderCallback, state.opaque), CURLOPT_HEADERFUNCTION)
        if state.control.progress != nil || state.control.cancellation != nil {
            try handle.check(ccurl_set_progress_callback(handle.curl, curlProgressCallback, state.opaque),
                             CURLOPT_XFERINFOFUNCTION)
        }

        // Headers
        var headers = request.headers
        if let download = request.download {
            let file = DownloadFile(download)
            try file.prepare(headers: &headers, url: request.url.absoluteString)
            state.download = file
        }
        try setHeaders(headers, of: request, on: handle, afterReset: true)

        try configureMethodAndBody(handle, request: request, state: state, resources: resources)
        try configureTLS(handle, request: request, resources: resources, policy: policy)
    }

    /// What a transfer sets on its handle besides the URL, the headers, the callbacks' data and a
    /// copied body. When a transfer's setup equals the one its handle did last, the handle keeps
    /// its options (libcurl keeps them between transfers): no `curl_easy_reset`, no twenty
    /// options set again. Only plain transfers qualify: no download, progress or cancellation,
    /// no streamed body, the host's standard trust policy (no pins, nothing per connection).
    struct RepeatableSetup: Equatable {
        let method: HTTPRequest.HTTPMethod
        let copiesBody: Bool
        let timeout: TimeInterval
        let isHTTPS: Bool

        init?(_ request: borrowing RawRequest, url: String, control: borrowing TransferControl,
               policy: borrowing HostTrustPolicy) {
            guard request.download == nil, control.progress == nil, control.cancellation == nil, policy.isStandard
            else { return nil }
            switch request.body {
            case nil:
                // Bodiless POST/PUT/PATCH send an empty body through the read callback.
                guard !request.sendsBody else { return nil }
                copiesBody = false
            case .data(let data) where !data.isEmpty && data.count <= CurlEngine.copiedBodyLimit:
                copiesBody = true
            default:
                return nil
            }
            method = request.method
            timeout = request.timeout
            isHTTPS = CurlEngine.isHTTPS(url)
        }
    }

    /// A transfer on a handle whose previous transfer had the same `RepeatableSetup`: only what
    /// differs between such transfers is set.
    private func configureRepeat(_ handle: EasyHandle, request: RawRequest, url: String, state: TransferState) throws {
        handle.clearErrorMessage()
        try handle.set(CURLOPT_URL, url)
        try handle.check(ccurl_set_callback_userdata(handle.curl, state.opaque), CURLOPT_WRITEDATA)
        try setHeaders(request.headers, of: request, on: handle, afterReset: false)
        if case .data(let data) = request.body {
            try copyBody(data, on: handle)
        }
    }

    /// What a request header list is built from (the session's User-Agent and Accept-Encoding
    /// are the engine's constants).
    struct HeaderListSource: Equatable {
        let headers: HTTPHeaders
        let suppressesExpect: Bool
    }

    /// Sets the request headers: the request's, then the default User-Agent and Accept-Encoding
    /// unless the request has its own, then `Expect:` for requests with a body. The handle keeps
    /// the list, and reuses it while the headers stay the same.
    private func setHeaders(_ headers: HTTPHeaders, of request: RawRequest, on handle: EasyHandle, afterReset: Bool) throws {
        // "Expect:" stops libcurl's `Expect: 100-continue`, which only a request body can trigger;
        // a custom header costs libcurl work on every transfer, so bodiless requests go without.
        let suppressesExpect = request.sendsBody && !headers.contains("Expect")
        let source = HeaderListSource(headers: headers, suppressesExpect: suppressesExpect)
        if handle.headerListSource == source {
            if afterReset { try handle.restoreHeaderList() }
            return
        }
        var list: UnsafeMutablePointer<curl_slist>?
        func append(_ line: String) { list = curl_slist_append(list, line) }
        for field in headers where ConnectionOptions.sendsHeader(named: field.name) {
            // "Name;" is libcurl's way to send a header with an empty value; "Name:" removes it.
            let line = field.value.isEmpty
                ? (field.name.caseInsensitiveEquals("Expect") ? "Expect:" : "\(field.name);")
                : "\(field.name): \(field.value)"
            guard !line.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else {
                if let list { curl_slist_free_all(list) }
                throw HTTPTransportError(code: .encodingFailed,
                                         message: "Header '\(field.name)' contains a line break.",
                                         url: request.url.absoluteString)
            }
            append(line)
        }
        if !headers.contains("User-Agent") { append("User-Agent: \(configuration.userAgent)") }
        // The same value libcurl would send for CURLOPT_ACCEPT_ENCODING "" (which stays set, so
        // libcurl decodes the response), written once here: libcurl formats its own copy on
        // every transfer, at a cost of ~9,000 instructions.
        if !Self.acceptEncoding.isEmpty, !headers.contains("Accept-Encoding") {
            append("Accept-Encoding: \(Self.acceptEncoding)")
        }
        if suppressesExpect { append("Expect:") }
        try handle.setHeaderList(list, source: source)
    }

    /// Whether a URL string (as libcurl gets it) starts with `https:`, in any case: cheaper than
    /// asking `URL` for its scheme.
    static func isHTTPS(_ url: String) -> Bool {
        func check(_ bytes: some Collection<UInt8>) -> Bool {
            var index = bytes.startIndex
            for expected in "https:".utf8 {
                guard index != bytes.endIndex, bytes[index] | 0x20 == expected | 0x20 else { return false }
                bytes.formIndex(after: &index)
            }
            return true
        }
        return url.utf8.withContiguousStorageIfAvailable(check) ?? check(url.utf8)
    }

    /// The content encodings this libcurl decodes, as it lists them in `Accept-Encoding`.
    static let acceptEncoding: String = {
        ccurl_global_init()
        guard let info = curl_version_info(CURLVERSION_TENTH)?.pointee else { return "" }
        var names: [String] = []
        if info.features & CURL_VERSION_LIBZ != 0 { names += ["deflate", "gzip"] }
        if info.features & CURL_VERSION_BROTLI != 0 { names.append("br") }
        if info.features & CURL_VERSION_ZSTD != 0 { names.append("zstd") }
        return names.joined(separator: ", ")
    }()

    /// A small body copied into libcurl, which sends it in the same write as the headers.
    private func copyBody(_ data: Data, on handle: EasyHandle) throws {
        // The size first: it also drops the previous copy.
        try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(data.count))
        let code = data.withUnsafeBytes { bytes in
            ccurl_setopt_pointer(handle.curl, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
        }
        try handle.check(code, CURLOPT_COPYPOSTFIELDS)
    }

    private func configureMethodAndBody(_ handle: EasyHandle, request: RawRequest, state: TransferState,
                                        resources: TransferResources) throws {
        let method = request.method
        switch request.body {
        case nil:
            switch method {
            case .get: try handle.set(CURLOPT_HTTPGET, true)
            case .head: try handle.set(CURLOPT_NOBODY, true)
            case .post, .put, .patch:
                // An empty body, with Content-Length: 0.
                state.uploadData = Data()
                try setUploadCallbacks(handle, state: state, size: 0)
                if method != .post { try handle.set(CURLOPT_CUSTOMREQUEST, method.rawValue) }
            default: try handle.set(CURLOPT_CUSTOMREQUEST, method.rawValue)
            }
        case .data(let data) where !data.isEmpty && data.count <= Self.copiedBodyLimit:
            // A small body is copied into libcurl, which then sends it in the same write as the
            // request headers (the read callback costs a separate write and a callback round).
            try handle.set(CURLOPT_POST, true)
            try copyBody(data, on: handle)
            if method != .post { try handle.set(CURLOPT_CUSTOMREQUEST, method.rawValue) }
        case .data(let data):
            state.uploadData = data
            try setUploadCallbacks(handle, state: state, size: Int64(data.count))
            if method != .post { try handle.set(CURLOPT_CUSTOMREQUEST, method.rawValue) }
        case .file(let fileURL):
            let descriptor = open(fileURL.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw HTTPTransportError(code: .fileIO,
                                         message: "Cannot open the file to upload (\(String(cString: strerror(errno)))): \(fileURL.path)",
                                         url: request.url.absoluteString)
            }
            state.uploadFile = descriptor
            var info = stat()
            let size: Int64 = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : -1
            try setUploadCallbacks(handle, state: state, size: size)
            if method != .post { try handle.set(CURLOPT_CUSTOMREQUEST, method.rawValue) }
        case .multipart(let parts):
            resources.mime = try MultipartBuilder.build(parts, on: handle, url: request.url.absoluteString)
            try handle.check(ccurl_setopt_mime(handle.curl, resources.mime), CURLOPT_MIMEPOST)
            if method != .post { try handle.set(CURLOPT_CUSTOMREQUEST, method.rawValue) }
        }
    }

    /// libcurl's receive buffer for each transfer.
    static let receiveBufferSize = 64 * 1024

    /// In-memory bodies up to this size are handed to libcurl with `CURLOPT_COPYPOSTFIELDS`.
    static let copiedBodyLimit = 64 * 1024

    private func setUploadCallbacks(_ handle: EasyHandle, state: TransferState, size: Int64) throws {
        try handle.set(CURLOPT_POST, true)
        try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: size)
        try handle.check(ccurl_set_read_callback(handle.curl, curlReadCallback, state.opaque), CURLOPT_READFUNCTION)
        try handle.check(ccurl_set_seek_callback(handle.curl, curlSeekCallback, state.opaque), CURLOPT_SEEKFUNCTION)
    }

    private func collectMetrics(_ handle: EasyHandle) -> TransferMetrics {
        var figures = ccurl_metrics()
        ccurl_get_metrics(handle.curl, &figures)
        var metrics = TransferMetrics()
        metrics.nameLookup = Double(figures.name_lookup_us) / 1_000_000
        metrics.connect = Double(figures.connect_us) / 1_000_000
        metrics.tlsHandshake = Double(figures.tls_handshake_us) / 1_000_000
        metrics.firstByte = Double(figures.first_byte_us) / 1_000_000
        metrics.total = Double(figures.total_us) / 1_000_000
        metrics.bytesSent = Int64(figures.bytes_sent)
        metrics.bytesReceived = Int64(figures.bytes_received)
        metrics.connectionReused = figures.connects == 0 && figures.response_code != 0
        switch figures.http_version {
        case Int(CURL_HTTP_VERSION_1_0): metrics.httpVersion = "1.0"
        case Int(CURL_HTTP_VERSION_1_1): metrics.httpVersion = "1.1"
        case Int(CURL_HTTP_VERSION_2_0): metrics.httpVersion = "2"
        case Int(CURL_HTTP_VERSION_3): metrics.httpVersion = "3"
        default: metrics.httpVersion = ""
        }
        metrics.remoteAddress = handle.remoteAddress(figures.remote_address)
        metrics.remotePort = figures.remote_port
        metrics.localPort = figures.local_port
        return metrics
    }
}

/// C memory owned by one transfer, released after it.
final class TransferResources {
    var mime: OpaquePointer?
    var pinCheck: UnsafeMutablePointer<ccurl_pin_check>?
    private var pinStorage: [UnsafeMutableRawBufferPointer] = []

    func makePinCheck(policy: HostTrustPolicy) -> UnsafeMutablePointer<ccurl_pin_check> {
        let check = UnsafeMutablePointer<ccurl_pin_check>.allocate(capacity: 1)
        check.initialize(to: ccurl_pin_check())
        let sha1 = store(policy.sha1Pins)
        let sha256 = store(policy.sha256Pins)
        check.pointee.sha1_pins = sha1
        check.pointee.count_sha1 = policy.sha1Pins.count
        check.pointee.sha256_pins = sha256
        check.pointee.count_sha256 = policy.sha256Pins.count
        check.pointee.verify_chain = 1
        // Public-key pins are enforced by libcurl; the callback then only records what the
        // server presented, for the error message. `.debug` records and accepts too.
        check.pointee.debug_only = (policy.debug || !policy.hasCertificatePins) ? 1 : 0
        pinCheck = check
        return check
    }

    private func store(_ pins: [[UInt8]]) -> UnsafePointer<UInt8>? {
        let bytes = pins.flatMap { $0 }
        guard !bytes.isEmpty else { return nil }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        buffer.copyBytes(from: bytes)
        pinStorage.append(buffer)
        return UnsafePointer(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self))
    }

    func release() {
        if let mime { curl_mime_free(mime) }
        mime = nil
        if let pinCheck { pinCheck.deallocate() }
        pinCheck = nil
        for buffer in pinStorage { buffer.deallocate() }
        pinStorage = []
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

extension CurlEngine {
    /// The libcurl version this process runs with (e.g. `"7.88.1"`).
    static let libcurlVersion: String = {
        ccurl_global_init()
        guard let info = curl_version_info(CURLVERSION_TENTH), let version = info.pointee.version else { return "unknown" }
        return String(cString: version)
    }()
}
