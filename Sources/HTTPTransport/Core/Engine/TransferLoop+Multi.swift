import CCurl
import Foundation

/// The calls a `TransferLoop` makes on libcurl's multi interface, and nothing else: libcurl's
/// (`CurlMulti`) in the library, a scripted one in the loop's own tests, which then run without
/// a server. Called from the loop's thread only, except `wake`.
protocol LoopMulti: AnyObject, Sendable {
    /// Adds a prepared easy handle (`curl_multi_add_handle`); false when libcurl refused it.
    func add(_ easy: UnsafeMutableRawPointer) -> Bool
    /// Takes an easy handle off (`curl_multi_remove_handle`).
    func remove(_ easy: UnsafeMutableRawPointer)
    /// Moves every transfer on as far as it goes without waiting (`curl_multi_perform`); false
    /// when libcurl failed as a whole.
    func perform() -> Bool
    /// The next transfer that ended, with its result (`curl_multi_info_read`), nil when none.
    func nextFinished() -> (easy: UnsafeMutableRawPointer, code: CURLcode)?
    /// Waits for the transfers' sockets, `sockets` (WebSocket descriptors, their `revents` set on
    /// return), a due timer of libcurl's or a `wake`, at most `milliseconds` (`curl_multi_poll`).
    func poll(_ sockets: UnsafeMutableBufferPointer<curl_waitfd>, milliseconds: Int32)
    /// Ends the current or next `poll` at once, from any thread (`curl_multi_wakeup`); a wake
    /// before the poll is kept, never lost. Does nothing once `close` was called.
    func wake()
    /// Lets a paused transfer go on (`curl_easy_pause` with `CURLPAUSE_CONT`).
    func unpause(_ easy: UnsafeMutableRawPointer)
    /// `count` WebSockets are open or in their handshake: each holds a connection of the pool,
    /// which must not leave fewer places to keep the other transfers' connections for reuse.
    func reserveConnections(forWebSockets count: Int)
    /// The HTTP version of the transfer's last response (`CURLINFO_HTTP_VERSION`; 0: none yet).
    func httpVersion(of easy: UnsafeMutableRawPointer) -> Int
    /// The loop is done with it: wake-ups stop, and an owned multi handle is cleaned up.
    func close()
}

/// libcurl's multi handle as a `LoopMulti`: the session loop's own (`owned`, cleaned up on
/// `close`), or an easy handle's, borrowed for one blocking transfer.
final class CurlMulti: LoopMulti, @unchecked Sendable {
    private let multi: UnsafeMutableRawPointer
    private let owned: Bool
    private let lock = NSLock()
    /// Guarded by `lock`: a wake-up from another thread never reaches a cleaned-up handle.
    private var closed = false
    /// Guarded by `lock` (tests read it from their thread): the places reserved for WebSockets.
    private var reserved = 0
    @exclusivity(unchecked) private var stillRunning: Int32 = 0

    /// The connections the pool keeps besides open WebSockets' (`CURLMOPT_MAXCONNECTS`); 0 for a
    /// borrowed handle, whose owner's default stands.
    let keptConnections: Int
    /// No pool is kept larger, whatever the configuration says (and the sum cannot overflow).
    static let keptConnectionsCeiling = 1 << 20

    /// A session with few places still keeps this many (libcurl's own bound with four transfers
    /// on the multi handle), so that one alternating between a few origins keeps a connection
    /// to each.
    static let minimumKeptConnections = 16

    /// The session's `limit` of transfers as the pool's bound: at most a quarter of the
    /// process's open-file limit (`openFiles`), so that the connections kept idle after a burst
    /// to many origins leave descriptors for everything else, and at most
    /// `keptConnectionsCeiling`; at least `minimumKeptConnections` (never 0, "no bound" to
    /// libcurl 7.88).
    static func keptConnections(for limit: Int, openFiles: Int = openFileLimit()) -> Int {
        max(minimumKeptConnections, min(limit, openFiles / 4, keptConnectionsCeiling))
    }

    /// The process's soft limit of open files (`RLIMIT_NOFILE`); `Int.max` when unlimited or
    /// unknown.
    static func openFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return .max }
        // (`RLIM_INFINITY` is the largest value: it clamps to `Int.max`.)
        return Int(clamping: limit.rlim_cur)
    }

    /// A new multi handle for a session's loop, whose pool keeps up to `keptConnections`
    /// connections (in use or idle) besides the open WebSockets'.
    ///
    /// libcurl's own bound is four per easy handle on the multi handle at the moment a
    /// transfer ends (7.88; libcurl 8 counts the transfers still running). The loop takes a
    /// handle off as soon as its transfer ended, and an async sender adds its next one only
    /// after it resumed, so that count dips between rounds: 32 senders each awaiting its GETs
    /// in turn opened 97 to 521 connections per 20,000 GETs. A fixed bound keeps them.
    init?(maxHostConnections: Int, multiplexing: Bool, keptConnections: Int) {
        guard let multi = curl_multi_init() else { return nil }
        self.multi = multi
        owned = true
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, multiplexing ? Int(CURLPIPE_MULTIPLEX) : Int(CURLPIPE_NOTHING))
        if maxHostConnections > 0 { _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxHostConnections) }
        self.keptConnections = Self.keptConnections(for: keptConnections)
        reserveConnections(forWebSockets: 0)
    }

    /// `multi`, which its owner (an `EasyHandle`) cleans up.
    init(borrowing multi: UnsafeMutableRawPointer) {
        self.multi = multi
        owned = false
        keptConnections = 0
    }

    deinit {
        if owned, !closed { curl_multi_cleanup(multi) }
    }

    func add(_ easy: UnsafeMutableRawPointer) -> Bool { curl_multi_add_handle(multi, easy) == CURLM_OK }

    func remove(_ easy: UnsafeMutableRawPointer) { curl_multi_remove_handle(multi, easy) }

    func perform() -> Bool { curl_multi_perform(multi, &stillRunning) == CURLM_OK }

    func nextFinished() -> (easy: UnsafeMutableRawPointer, code: CURLcode)? {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                return (easy, message.pointee.data.result)
            }
        }
        return nil
    }

    func poll(_ sockets: UnsafeMutableBufferPointer<curl_waitfd>, milliseconds: Int32) {
        _ = curl_multi_poll(multi, sockets.baseAddress, UInt32(sockets.count), milliseconds, nil)
    }

    func wake() {
        lock.lock()
        if !closed { _ = curl_multi_wakeup(multi) }
        lock.unlock()
    }

    func unpause(_ easy: UnsafeMutableRawPointer) { _ = ccurl_unpause(easy) }

    func reserveConnections(forWebSockets count: Int) {
        guard keptConnections > 0 else { return }
        let count = max(0, count)
        lock.withLock { reserved = count }
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, keptConnections + count)
    }

    /// The places the pool's bound holds for open WebSockets and handshakes now.
    var reservedForWebSockets: Int { lock.withLock { reserved } }

    func httpVersion(of easy: UnsafeMutableRawPointer) -> Int {
        var version = 0
        _ = ccurl_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        return version
    }

    func close() {
        let cleans = lock.withLock { () -> Bool in
            defer { closed = true }
            return owned && !closed
        }
        if cleans { curl_multi_cleanup(multi) }
    }
}
