import CCurl
import Foundation

/// One libcurl easy handle, with its error buffer. Used by one thread at a time: the pool
/// hands it out and takes it back. Its connection cache survives between transfers, so
/// keep-alive connections are reused by the next transfer on it. Being used by one thread at
/// a time (the pool's lock orders the hand-overs), its stored properties opt out of the
/// runtime's exclusivity bookkeeping.
final class EasyHandle: @unchecked Sendable {
    let curl: UnsafeMutableRawPointer
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// When the handle last went back to the pool (for idle trimming).
    @exclusivity(unchecked) var idleSince = HandlePool.now()
    /// The multi handle used for cancellable transfers, made on first use.
    @exclusivity(unchecked) private var multiHandle: UnsafeMutableRawPointer?
    /// The options the last transfer set, when the next transfer may repeat them without a
    /// reset (`nil` after any other transfer: the next one starts from `reset()`).
    @exclusivity(unchecked) var repeatableSetup: CurlEngine.RepeatableSetup?
    /// The request header list set on the handle (owned by it), and what it was built from.
    @exclusivity(unchecked) private(set) var headerList: UnsafeMutablePointer<curl_slist>?
    @exclusivity(unchecked) private(set) var headerListSource: CurlEngine.HeaderListSource?
    /// What the session-level connection options keep per handle (ConnectionOptions.swift).
    let connectionContext = ConnectionContext()

    init?() {
        ccurl_global_init()
        guard let curl = curl_easy_init() else { return nil }
        self.curl = curl
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        if let multiHandle { curl_multi_cleanup(multiHandle) }
        curl_easy_cleanup(curl)
        if let headerList { curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
    }

    /// Clears every option (they persist between transfers otherwise); keeps connections,
    /// DNS and TLS session caches, and the header list (set it again).
    func reset() {
        curl_easy_reset(curl)
        repeatableSetup = nil
        errorBuffer[0] = 0
        _ = ccurl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    /// Empties the error buffer before a transfer that keeps the previous options.
    func clearErrorMessage() {
        errorBuffer[0] = 0
    }

    /// Sets a new `list` as the request headers (`CURLOPT_HTTPHEADER`) and takes ownership of
    /// it; the previous list is freed once libcurl no longer points at it.
    func setHeaderList(_ list: UnsafeMutablePointer<curl_slist>?, source: CurlEngine.HeaderListSource) throws(EngineSetupError) {
        let code = ccurl_setopt_slist(curl, CURLOPT_HTTPHEADER, list)
        guard code == CURLE_OK else {
            if let list { curl_slist_free_all(list) }
            throw EngineSetupError(code: code, option: CURLOPT_HTTPHEADER)
        }
        if let headerList { curl_slist_free_all(headerList) }
        headerList = list
        headerListSource = source
    }

    /// Points `CURLOPT_HTTPHEADER` at the handle's list again (after `reset()`).
    func restoreHeaderList() throws(EngineSetupError) {
        try check(ccurl_setopt_slist(curl, CURLOPT_HTTPHEADER, headerList), CURLOPT_HTTPHEADER)
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

    // MARK: Options (a failing option is reported, never ignored)

    func set(_ option: CURLoption, _ value: Int) throws(EngineSetupError) {
        try check(ccurl_setopt_long(curl, option, value), option)
    }

    func set(_ option: CURLoption, _ value: Bool) throws(EngineSetupError) {
        try check(ccurl_setopt_long(curl, option, value ? 1 : 0), option)
    }

    func set(_ option: CURLoption, offset value: Int64) throws(EngineSetupError) {
        try check(ccurl_setopt_off(curl, option, curl_off_t(value)), option)
    }

    /// libcurl copies string options, so the Swift string need not outlive the call.
    func set(_ option: CURLoption, _ value: String) throws(EngineSetupError) {
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
