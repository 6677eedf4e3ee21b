import CCurl
import Foundation

/// One libcurl easy handle, with its error buffer, its request header list and a record of the
/// options it holds. Used by one thread at a time: the pool hands it out and takes it back (its
/// lock orders the hand-overs), so its stored properties opt out of the runtime's exclusivity
/// bookkeeping. Its connection cache survives between transfers, so keep-alive connections are
/// reused by the next transfer on it.
final class EasyHandle: @unchecked Sendable {
    let curl: UnsafeMutableRawPointer
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// When the handle last went back to the pool (for idle trimming).
    @exclusivity(unchecked) var idleSince = HandlePool.now()
    /// The per-transfer options the handle holds.
    @exclusivity(unchecked) var applied = TransferOptions.libcurlDefaults
    /// The plain request's inputs `applied` was made for, when they alone decide it
    /// (`TransferOptions.Inputs`); nil after anything else, or after an option changed during
    /// a transfer.
    @exclusivity(unchecked) var appliedInputs: TransferOptions.Inputs?
    /// Transfers started on this handle; names each transfer's own resources (`TransferResource`).
    @exclusivity(unchecked) private(set) var transferCount: UInt64 = 0
    /// The request header list set on the handle, owned by it.
    @exclusivity(unchecked) private var headerList: UnsafeMutablePointer<curl_slist>?
    /// The multi handle used for cancellable transfers, made on first use.
    @exclusivity(unchecked) private var multiHandle: UnsafeMutableRawPointer?
    /// What the session-level connection options keep per handle (ConnectionOptions.swift).
    let connectionContext = ConnectionContext()
    /// Where libcurl's callbacks find the running transfer: every callback of the handle gets
    /// this slot as its user data, set once here, and each transfer puts its state in it (one
    /// store, instead of setting six user-data options on every transfer).
    let transferSlot: UnsafeMutablePointer<ccurl_callback_slot>
    /// The state of the handle's transfers, one after the other (`TransferState.begin`/`end`),
    /// whose response head and body in memory the C callbacks fill (`ccurl_header_callback`,
    /// `ccurl_write_callback`); the head's memory stays from one transfer to the next.
    let transferState = TransferState()
    /// Its place among the transfers of the `TransferLoop` running it (`RunningTransfers`), -1
    /// when it runs on none. The loop's thread only.
    @exclusivity(unchecked) var loopSlot = -1
    /// The request head the last transfer sent, kept by the debug callback (set once here; libcurl
    /// calls it only while `CURLOPT_VERBOSE` is on, see `TransferOptions.keepsSentHead`).
    let sentHead: UnsafeMutablePointer<ccurl_sent_head>

    init?() {
        ccurl_global_init()
        guard let curl = curl_easy_init() else { return nil }
        self.curl = curl
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        _ = ccurl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, errorBuffer)
        transferSlot = .allocate(capacity: 1)
        transferSlot.initialize(to: ccurl_callback_slot(state: nil, head: transferState.headPointer,
                                                        body: transferState.memory.bodyPointer,
                                                        header: curlHeaderCallback, write: curlWriteCallback))
        _ = ccurl_set_callback_userdata(curl, transferSlot)  // (only stores the pointer)
        sentHead = .allocate(capacity: 1)
        sentHead.initialize(to: ccurl_sent_head(buffer: ccurl_header_lines(bytes: nil, count: 0, capacity: 0, has_fold: 0), complete: 1))
        _ = ccurl_set_sent_head(curl, sentHead)
        transferState.belongs(to: self)
        _ = ccurl_setopt_pointer(curl, CURLOPT_PRIVATE, Unmanaged.passUnretained(self).toOpaque())  // (`owner(of:)`)
    }

    deinit {
        if let multiHandle { curl_multi_cleanup(multiHandle) }
        curl_easy_cleanup(curl)
        if let headerList { curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
        transferSlot.deallocate()
        ccurl_sent_head_free(sentHead)
        sentHead.deallocate()
    }

    /// The handle whose libcurl handle `curl` is (`CURLOPT_PRIVATE`, set once by `init`), not
    /// retained: only for a libcurl handle that something keeps alive (one on a multi handle is
    /// held by whoever added it).
    static func owner(of curl: UnsafeMutableRawPointer) -> EasyHandle? {
        ccurl_private(curl).map { Unmanaged<EasyHandle>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Hands one header line to the handle's header callback, as libcurl does during a transfer.
    func deliverHeaderLine(_ line: UnsafeMutableRawBufferPointer) -> Int {
        ccurl_header_callback(line.baseAddress?.assumingMemoryBound(to: CChar.self), 1, line.count, transferSlot)
    }

    /// Starts a transfer: a new number for its resources, and an empty error buffer.
    func beginTransfer() -> UInt64 {
        transferCount += 1
        errorBuffer[0] = 0
        return transferCount
    }

    /// Sets `lines` as the request headers (`CURLOPT_HTTPHEADER`); the handle owns the list.
    func setHeaderList(_ lines: [String]) throws(EngineSetupError) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let appended = curl_slist_append(list, line) else {
                if let list { curl_slist_free_all(list) }
                throw EngineSetupError(code: CURLE_OUT_OF_MEMORY, option: CURLOPT_HTTPHEADER)
            }
            list = appended
        }
        let code = ccurl_setopt_slist(curl, CURLOPT_HTTPHEADER, list)
        guard code == CURLE_OK else {
            if let list { curl_slist_free_all(list) }
            throw EngineSetupError(code: code, option: CURLOPT_HTTPHEADER)
        }
        // The previous list is freed only once libcurl no longer points at it.
        if let headerList { curl_slist_free_all(headerList) }
        headerList = list
    }

    /// This handle's multi handle (its connections live there while it is in use).
    func multi() -> UnsafeMutableRawPointer? {
        if multiHandle == nil { multiHandle = curl_multi_init() }
        return multiHandle
    }

    /// libcurl's error-buffer text of the last transfer, if any.
    var errorMessage: String? {
        let text = String(cString: errorBuffer).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    // MARK: Options (a refused option is reported, never ignored)

    func set(_ option: CURLoption, _ value: Int) throws(EngineSetupError) {
        try check(ccurl_setopt_long(curl, option, value), option)
    }

    func set(_ option: CURLoption, _ value: Bool) throws(EngineSetupError) {
        try check(ccurl_setopt_long(curl, option, value ? 1 : 0), option)
    }

    func set(_ option: CURLoption, offset value: Int64) throws(EngineSetupError) {
        try check(ccurl_setopt_off(curl, option, curl_off_t(value)), option)
    }

    /// libcurl copies string options, so the Swift string need not outlive the call; `nil`
    /// clears the option.
    func set(_ option: CURLoption, _ value: String?) throws(EngineSetupError) {
        guard let value else {
            try check(ccurl_setopt_string(curl, option, nil), option)
            return
        }
        let code = value.withCString { ccurl_setopt_string(curl, option, $0) }
        try check(code, option)
    }

    func check(_ code: CURLcode, _ option: CURLoption) throws(EngineSetupError) {
        guard code == CURLE_OK else {
            throw EngineSetupError(code: code, option: option)
        }
    }

    // MARK: Information

    /// The last remote address as a String, made again only when it changed (a kept-alive
    /// connection answers from the same address every time).
    @exclusivity(unchecked) private var lastRemoteAddress = ""

    func remoteAddress(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "" }
        let changed = lastRemoteAddress.withCString { strcmp($0, text) != 0 }
        if changed { lastRemoteAddress = String(cString: text) }
        return lastRemoteAddress
    }
}

/// libcurl refused an option (e.g. a feature missing from this build).
struct EngineSetupError: Error {
    let code: CURLcode
    let option: CURLoption

    var message: String {
        "libcurl refused option \(option.rawValue): \(String(cString: curl_easy_strerror(code)))"
    }
}
