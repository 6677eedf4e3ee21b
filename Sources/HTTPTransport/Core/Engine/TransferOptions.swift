import CCurl
import Foundation

/// Every libcurl option that one transfer sets, as one value: the single source of truth for
/// how a handle is configured.
///
/// A handle remembers the options it holds (`EasyHandle.applied`); `apply(to:)` sets exactly the
/// ones that differ, so a transfer on a reused handle ends up configured exactly as on a new one,
/// whatever ran on it before, and nothing needs `curl_easy_reset` (which would also drop the
/// options set once when the handle was made, see `CurlEngine.makeHandle`). A new option goes
/// into this value and is applied on every path by construction.
///
/// Options that do not depend on the request (callbacks, buffer size, proxy, TLS roots, …) are
/// not here: they are set once, when the handle is made.
struct TransferOptions: Equatable {
    /// `CURLOPT_URL`.
    var url: String
    /// `CURLOPT_TIMEOUT_MS`: the whole exchange (0: none).
    var timeoutMilliseconds: Int
    /// `CURLOPT_CONNECTTIMEOUT_MS` (0: libcurl's default).
    var connectTimeoutMilliseconds: Int
    /// `CURLOPT_MAXFILESIZE_LARGE`: a declared body larger than this is refused up front (0: no limit).
    var maxFileSize: Int64
    /// The method and where the body comes from (several options that must change together).
    var body: BodyOption
    /// `CURLOPT_HTTPHEADER`: what the handle's header list is built from.
    var headers: HeaderListSource
    /// `CURLOPT_NOPROGRESS` off: the progress callback runs (progress reports, cancellation).
    var reportsProgress: Bool
    /// The per-host TLS checks.
    var tls: TLSOption
    /// `CURLOPT_PROXY`: the proxy this request goes through, "" for none (nil: libcurl's default,
    /// which reads the environment; never set by a transfer). See `ConnectionOptions.route(for:)`.
    var proxy: String?
    /// `CURLOPT_FORBID_REUSE`: close the connection after this transfer (see `ConnectionOptions.forbidsReuse`).
    var forbidsReuse = false
    /// `CURLOPT_PREREQFUNCTION`: the pre-request callback runs, which refuses a resend
    /// (RequestResend.swift); only for a request libcurl must not send again by itself.
    var refusesResend = false
    /// `CURLOPT_HTTP_CONTENT_DECODING`: off for every transfer, whose body the engine decodes
    /// itself (`ContentDecoder`); libcurl still sends its `Accept-Encoding`. (The record starts
    /// at libcurl's default, on.)
    var decodesContent = true
    /// `CURLOPT_VERBOSE`: the debug callback keeps the request head as sent (`EasyHandle.sentHead`),
    /// only for a request whose pipeline records it (`RawRequest.keepsSentHead`): verbose costs on
    /// every transfer.
    var keepsSentHead = false

    /// The options of a handle that no transfer has used yet (libcurl's defaults).
    static var libcurlDefaults: TransferOptions {
        TransferOptions(url: "", timeoutMilliseconds: 0, connectTimeoutMilliseconds: 0, maxFileSize: 0, body: .get,
                        headers: .none, reportsProgress: false, tls: TLSOption(), proxy: nil)
    }

    /// Whether no option names a resource of this transfer's own (a MIME body, a pin check), so
    /// that the options are a function of the request's `Inputs` alone.
    var ownsNoTransferResource: Bool {
        if case .multipart = body { return false }
        return tls.pinCheck == nil
    }

    /// What a plain request's options are made of: its URL, method, headers and time-out, whether
    /// its transfer reports progress, and the proxy the session routes it through (the session's
    /// other settings being the same for every handle of the engine). Plain: nothing of the
    /// transfer's own besides (no body, none sent, no download, no stream), so the options made
    /// for equal inputs are equal, unless they name a resource of the transfer's own
    /// (`ownsNoTransferResource`).
    ///
    /// A handle remembers the inputs its options were last made for (`EasyHandle.appliedInputs`),
    /// and `CurlEngine.prepare` skips making and comparing the options when a transfer's inputs
    /// are the same: a worker sending one request again and again saves about a tenth of a small
    /// GET's own instructions. `TransferOptionsInputsTests` proves the options a handle then holds
    /// equal those made afresh.
    final class Inputs: @unchecked Sendable {
        let url: String
        let method: HTTPRequest.HTTPMethod
        let headerFields: [HTTPHeaders.Field]
        let timeout: TimeInterval
        let reportsProgress: Bool
        let keepsSentHead: Bool
        /// The proxy the session decided on for the request (nil: left to libcurl), which may
        /// change between two sends of one request (the environment's variables, read each time).
        let proxy: String?

        /// The inputs of `request` (its URL as `url`, its route as `proxy`), nil when it is not plain.
        init?(_ request: RawRequest, url: String, control: TransferControl, proxy: String?) {
            guard Self.isPlain(request) else { return nil }
            self.url = url
            method = request.method
            headerFields = request.headers.isEmpty ? [] : request.headers.fields
            timeout = request.timeout
            reportsProgress = control.needsProgressCallback
            keepsSentHead = request.keepsSentHead
            self.proxy = proxy
        }

        /// Whether `request` is plain and these are its inputs.
        func match(_ request: RawRequest, url: String, control: TransferControl, proxy: String?) -> Bool {
            Self.isPlain(request) && timeout == request.timeout && method == request.method
                && reportsProgress == control.needsProgressCallback && self.proxy == proxy && keepsSentHead == request.keepsSentHead
                && self.url == url && (request.headers.isEmpty ? headerFields.isEmpty : headerFields == request.headers.fields)
        }

        private static func isPlain(_ request: RawRequest) -> Bool {
            !request.sendsBody && request.download == nil && request.bodyConsumer == nil  // (no body sent: none at all)
        }
    }

    /// Sets on `handle` every option that differs from what it holds, then records these.
    /// (A handle whose set-up fails is closed, never reused: what it holds then does not matter.)
    /// A handle that already holds every option (the same request again) keeps its record as it
    /// is: only the comparisons are made, on the record in place.
    func apply(to handle: EasyHandle, userAgent: String) throws(EngineSetupError) {
        try apply(to: handle, holding: &handle.applied, userAgent: userAgent)
    }

    /// `apply(to:userAgent:)` with the handle's record (`EasyHandle.applied`) as `held`.
    private func apply(to handle: EasyHandle, holding held: inout TransferOptions,
                       userAgent: String) throws(EngineSetupError) {
        var changed = false
        if url != held.url {
            try handle.set(CURLOPT_URL, url)
            changed = true
        }
        if holdsOtherNumbers(than: held) {
            try applyNumbers(to: handle, holding: held)
            changed = true
        }
        if body != held.body {
            try body.apply(to: handle)
            changed = true
        }
        if headers != held.headers {
            try handle.setHeaderList(headers.lines(userAgent: userAgent))
            changed = true
        }
        if tls != held.tls {
            try tls.apply(to: handle, holding: held.tls)
            changed = true
        }
        if proxy != held.proxy {
            try handle.set(CURLOPT_PROXY, proxy)
            changed = true
        }
        guard changed else { return }
        held = self
        held.body = body.withoutCopiedBytes
    }

    /// Whether a numeric or on/off option differs from what the handle holds.
    private func holdsOtherNumbers(than held: borrowing TransferOptions) -> Bool {
        timeoutMilliseconds != held.timeoutMilliseconds || connectTimeoutMilliseconds != held.connectTimeoutMilliseconds
            || maxFileSize != held.maxFileSize || reportsProgress != held.reportsProgress
            || forbidsReuse != held.forbidsReuse || decodesContent != held.decodesContent
            || refusesResend != held.refusesResend || keepsSentHead != held.keepsSentHead
    }

    /// The numeric and on/off options that differ from what the handle holds.
    private func applyNumbers(to handle: EasyHandle, holding held: borrowing TransferOptions) throws(EngineSetupError) {
        if timeoutMilliseconds != held.timeoutMilliseconds { try handle.set(CURLOPT_TIMEOUT_MS, timeoutMilliseconds) }
        if connectTimeoutMilliseconds != held.connectTimeoutMilliseconds {
            try handle.set(CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMilliseconds)
        }
        if maxFileSize != held.maxFileSize { try handle.set(CURLOPT_MAXFILESIZE_LARGE, offset: maxFileSize) }
        if reportsProgress != held.reportsProgress { try handle.set(CURLOPT_NOPROGRESS, !reportsProgress) }
        if forbidsReuse != held.forbidsReuse { try handle.set(CURLOPT_FORBID_REUSE, forbidsReuse) }
        if decodesContent != held.decodesContent { try handle.set(CURLOPT_HTTP_CONTENT_DECODING, decodesContent) }
        if keepsSentHead != held.keepsSentHead { try handle.set(CURLOPT_VERBOSE, keepsSentHead) }
        if refusesResend != held.refusesResend {
            try handle.check(ccurl_set_prereq_callback(handle.curl, refusesResend ? curlPrereqCallback : nil), CURLOPT_PREREQFUNCTION)
        }
    }
}

/// A transfer's own C resource (a MIME body, a pin check), named by the transfer that made it:
/// equal only within that transfer, so a later transfer always sets its own resource again even
/// if it happens to sit at the same address.
struct TransferResource: Equatable {
    let transfer: UInt64
    let pointer: UnsafeMutableRawPointer

    static func == (lhs: TransferResource, rhs: TransferResource) -> Bool { lhs.transfer == rhs.transfer }
}

/// The method and the body: `CURLOPT_HTTPGET`, `NOBODY`, `POST`, `CUSTOMREQUEST`,
/// `POSTFIELDSIZE_LARGE`, `COPYPOSTFIELDS`, `MIMEPOST`. libcurl ties these options together
/// (each of them changes the method it will use), so they are always set as a whole, in one order.
enum BodyOption: Equatable {
    /// `GET`, no body.
    case get
    /// `HEAD`.
    case head
    /// Another method without a body (`DELETE`, `OPTIONS`, …).
    case bodiless(method: String)
    /// A small in-memory body that libcurl copies and sends with the headers. `method` nil: POST.
    case copied(method: String?, body: Data)
    /// A body streamed through the read callback (`size` -1: unknown, sent chunked).
    case streamed(method: String?, size: Int64)
    /// A `multipart/form-data` body.
    case multipart(method: String?, mime: TransferResource)

    /// In-memory bodies up to this size are handed to libcurl to copy: it then sends them in the
    /// same write as the request headers (the read callback costs a separate write).
    static let copiedBodyLimit = 64 * 1024

    /// Over HTTP/1.1, libcurl (7.88 and 8) announces a POST body of unknown size or over 1 MiB
    /// with `Expect: 100-continue` and waits for the server's `100 Continue` before sending it.
    /// (Every body here is libcurl's POST, other methods by `CURLOPT_CUSTOMREQUEST`: its PUT,
    /// `CURLOPT_UPLOAD`, would announce any body.)
    static let expectContinueThreshold: Int64 = 1024 * 1024

    /// Whether libcurl would announce this body with `Expect: 100-continue`, the request's own
    /// header fields being `headers`:
    /// - a streamed body of unknown size or over 1 MiB;
    /// - a streamed body whose request sets its own `Transfer-Encoding` (libcurl 8.8 and later
    ///   then read its size as unknown, `set_reader` in http.c);
    /// - a multipart body (libcurl counts its size itself: assumed so).
    ///
    /// For any other body the header list needs no `Expect:` line to turn it off, and leaves it
    /// out: libcurl writes each line of the list a byte at a time, and this one cost a small
    /// POST about 1.1k of its 97k instructions.
    func mayExpectContinue(headers: HTTPHeaders) -> Bool {
        switch self {
        case .get, .head, .bodiless, .copied: false
        case .streamed(_, let size):
            size < 0 || size > Self.expectContinueThreshold || size > 0 && headers.contains("Transfer-Encoding")
        case .multipart: true
        }
    }

    func apply(to handle: EasyHandle) throws(EngineSetupError) {
        // Back to a bodiless GET first, so nothing of the previous method or body stays.
        try handle.set(CURLOPT_NOBODY, false)
        try handle.set(CURLOPT_CUSTOMREQUEST, nil as String?)
        try handle.check(ccurl_setopt_pointer(handle.curl, CURLOPT_POSTFIELDS, nil), CURLOPT_POSTFIELDS)
        try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: -1)
        try handle.check(ccurl_setopt_mime(handle.curl, nil), CURLOPT_MIMEPOST)
        try handle.set(CURLOPT_HTTPGET, true)
        let method: String?
        switch self {
        case .get:
            return
        case .head:
            try handle.set(CURLOPT_NOBODY, true)
            return
        case .bodiless(let name):
            method = name
        case .copied(let name, let body):
            method = name
            // The size first: COPYPOSTFIELDS copies that many bytes.
            try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(body.count))
            let code = body.withUnsafeBytes { bytes in
                ccurl_setopt_pointer(handle.curl, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            }
            try handle.check(code, CURLOPT_COPYPOSTFIELDS)
        case .streamed(let name, let size):
            method = name
            try handle.set(CURLOPT_POST, true)
            try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: size)
        case .multipart(let name, let mime):
            method = name
            try handle.check(ccurl_setopt_mime(handle.curl, OpaquePointer(mime.pointer)), CURLOPT_MIMEPOST)
        }
        if let method { try handle.set(CURLOPT_CUSTOMREQUEST, method) }
    }
}

/// What the request header list is built from (the lines themselves are made only when this
/// changes: a handle sending the same headers again keeps its list).
struct HeaderListSource: Equatable {
    var headers: HTTPHeaders
    /// Whether the body is one libcurl would announce with `Expect: 100-continue`
    /// (`BodyOption.mayExpectContinue(headers:)`): the list then turns that off.
    var turnsOffExpect: Bool
    /// `false` only for `none`: no list set (a handle no transfer has used), unequal to any
    /// transfer's.
    private var isSet = true

    init(headers: HTTPHeaders, turnsOffExpect: Bool) {
        self.headers = headers
        self.turnsOffExpect = turnsOffExpect
    }

    /// libcurl's default: no header list.
    static var none: HeaderListSource {
        var none = HeaderListSource(headers: HTTPHeaders(), turnsOffExpect: false)
        none.isSet = false
        return none
    }

    func lines(userAgent: String) -> [String] {
        guard isSet else { return [] }
        return WireHeaders.fields(headers: headers, turnsOffExpect: turnsOffExpect, userAgent: userAgent,
                                  acceptEncoding: CurlEngine.acceptEncoding).map(WireHeaders.line)
    }
}

/// The per-host TLS checks of a transfer (see `CurlEngine.tlsOption(for:transfer:)` in
/// CurlEngine+TLS.swift for how they are decided). The defaults are libcurl's.
struct TLSOption: Equatable {
    /// `CURLOPT_SSL_VERIFYPEER`.
    var verifiesPeer = true
    /// `CURLOPT_SSL_VERIFYHOST` 2 (on) or 0.
    var verifiesHost = true
    /// `CURLOPT_PINNEDPUBLICKEY`.
    var pinnedPublicKeys: String?
    /// `CURLOPT_SSL_CTX_FUNCTION` + `CURLOPT_SSL_CTX_DATA`: the handshake's pin check.
    var pinCheck: TransferResource?
    /// `CURLOPT_SSL_SESSIONID_CACHE`.
    var cachesSessions = true

    func apply(to handle: EasyHandle, holding held: borrowing TLSOption) throws(EngineSetupError) {
        if verifiesPeer != held.verifiesPeer { try handle.set(CURLOPT_SSL_VERIFYPEER, verifiesPeer) }
        if verifiesHost != held.verifiesHost { try handle.set(CURLOPT_SSL_VERIFYHOST, verifiesHost ? 2 : 0) }
        if pinnedPublicKeys != held.pinnedPublicKeys { try handle.set(CURLOPT_PINNEDPUBLICKEY, pinnedPublicKeys) }
        if pinCheck != held.pinCheck {
            let check = pinCheck?.pointer.assumingMemoryBound(to: ccurl_pin_check.self)
            try handle.check(ccurl_set_pin_check(handle.curl, check), CURLOPT_SSL_CTX_FUNCTION)
        }
        if cachesSessions != held.cachesSessions { try handle.set(CURLOPT_SSL_SESSIONID_CACHE, cachesSessions) }
    }
}
