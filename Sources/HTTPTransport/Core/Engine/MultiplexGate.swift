import Foundation

/// How many transfers that may share an HTTP/2 connection reach the loop's multi handle at
/// once, per origin: at most one connection's worth of streams, the rest waiting here in order.
///
/// libcurl multiplexes a transfer onto a connection only while the connection has a stream free
/// (its own limit, `CURLMOPT_MAX_CONCURRENT_STREAMS`, 100 by default, and the server's); past
/// that, without `CURLMOPT_MAX_HOST_CONNECTIONS`, libcurl 7.88 opens a new connection for every
/// further transfer (1,000 concurrent GETs to an h2 server: 900 connections, each a TLS
/// handshake), and libcurl 8 a few. A session without a per-host limit therefore lets at most
/// `streamsPerOrigin` such transfers per origin into the multi handle, so that they fit the one
/// connection, and admits the next as each ends. The gate applies only to transfers that wait
/// to multiplex (`CURLOPT_PIPEWAIT`: HTTPS with `.automatic`, or HTTP/2 prior knowledge) and
/// are not streams (a stream may stay open for hours, which must not hold back other requests).
/// An origin that answered over HTTP/1 has no such limit: its transfers need connections of
/// their own, and go in at once.
///
/// The loop thread's own (no lock). A waiting transfer's time-out runs while it waits (the gate
/// is the loop's business, not the caller's): one that expires here ends with `.timeout`, and
/// one admitted late has what is left of it.
struct MultiplexGate {
    /// One connection's streams: libcurl's own default limit, which servers meet (RFC 9113
    /// recommends at least 100; nginx announces 128).
    static let streamsPerOrigin = 100

    private struct Origin {
        var inFlight = 0
        var waiting: [LoopTransfer] = []
        /// `waiting[..<next]` have been admitted (a queue without moving the rest on each take).
        var next = 0
        /// The origin answered over HTTP/1: no limit.
        var speaksHTTP1 = false

        var hasWaiting: Bool { next < waiting.count }

        mutating func take() -> LoopTransfer {
            let transfer = waiting[next]
            next += 1
            if next == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                next = 0
            }
            inFlight += 1
            return transfer
        }
    }

    private var origins: [String: Origin] = [:]
    /// No waiting transfer's deadline falls before this (it may be earlier than the earliest
    /// still waiting: `expire` then looks and sets it right).
    private(set) var earliestDeadline: ContinuousClock.Instant?

    /// The key of a transfer to `url` that waits to multiplex: scheme, host and port.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// Whether `transfer` may join the multi handle now; if not, it waits here, in order.
    mutating func admits(_ transfer: LoopTransfer) -> Bool {
        guard let key = transfer.multiplexOrigin else { return true }
        var origin = origins[key, default: Origin()]
        defer { origins[key] = origin }
        guard origin.speaksHTTP1 || origin.inFlight < Self.streamsPerOrigin else {
            origin.waiting.append(transfer)
            if let deadline = transfer.deadline { earliestDeadline = min(earliestDeadline ?? deadline, deadline) }
            return false
        }
        origin.inFlight += 1
        return true
    }

    /// `transfer` left the multi handle (`httpVersion`: `CURLINFO_HTTP_VERSION`, 0 when it got no
    /// answer); returns the transfers admitted in its place, to add now.
    mutating func release(_ transfer: LoopTransfer, httpVersion: Int) -> [LoopTransfer] {
        guard let key = transfer.multiplexOrigin, var origin = origins[key] else { return [] }
        origin.inFlight -= 1
        if httpVersion > 0 && httpVersion < 3 /* CURL_HTTP_VERSION_2_0 */ { origin.speaksHTTP1 = true }
        var admitted: [LoopTransfer] = []
        while origin.hasWaiting && (origin.speaksHTTP1 || origin.inFlight < Self.streamsPerOrigin) {
            admitted.append(origin.take())
        }
        // An origin with nothing in flight is forgotten: the dictionary stays as small as the
        // origins in use, and the next burst learns the origin's protocol again.
        origins[key] = origin.inFlight == 0 && !origin.hasWaiting ? nil : origin
        forgetDeadlineWhenEmpty()
        return admitted
    }

    /// With no origin left nothing waits: a deadline kept from a transfer let in before it
    /// passed would otherwise stay, and the loop (which skips `expire` for an empty gate) would
    /// poll for it with no wait at all, spinning, while a stream or WebSocket is open.
    private mutating func forgetDeadlineWhenEmpty() {
        if origins.isEmpty { earliestDeadline = nil }
    }

    /// A transfer to `key` got its head over HTTP/1: the origin has no limit, and every transfer
    /// waiting for it goes in now (returned, to add), not when one of its transfers ends.
    mutating func learnedHTTP1(_ key: String) -> [LoopTransfer] {
        guard var origin = origins[key], !origin.speaksHTTP1 else { return [] }
        origin.speaksHTTP1 = true
        var admitted: [LoopTransfer] = []
        while origin.hasWaiting { admitted.append(origin.take()) }
        origins[key] = origin
        return admitted
    }

    /// Takes a waiting `transfer` out (it was cancelled); false when it is not waiting here.
    mutating func withdraw(_ transfer: LoopTransfer) -> Bool {
        guard let key = transfer.multiplexOrigin, var origin = origins[key],
              let index = origin.waiting[origin.next...].firstIndex(where: { $0 === transfer }) else { return false }
        origin.waiting.remove(at: index)
        origins[key] = origin.inFlight == 0 && !origin.hasWaiting ? nil : origin
        forgetDeadlineWhenEmpty()
        return true
    }

    /// Takes out the waiting transfers whose deadline has passed (they end with a time-out).
    mutating func expire(now: ContinuousClock.Instant) -> [LoopTransfer] {
        guard let earliest = earliestDeadline, earliest <= now else { return [] }
        var expired: [LoopTransfer] = []
        var next: ContinuousClock.Instant?
        for key in Array(origins.keys) {
            guard var origin = origins[key], origin.hasWaiting else { continue }
            var kept = Array(origin.waiting[origin.next...])
            kept.removeAll { transfer in
                guard let deadline = transfer.deadline else { return false }
                if deadline <= now {
                    expired.append(transfer)
                    return true
                }
                next = min(next ?? deadline, deadline)
                return false
            }
            origin.waiting = kept
            origin.next = 0
            origins[key] = origin.inFlight == 0 && !origin.hasWaiting ? nil : origin
        }
        earliestDeadline = next
        return expired
    }

    /// Whether any origin has transfers in flight or waiting (else the round skips the gate).
    var holdsTransfers: Bool { !origins.isEmpty }

    /// Transfers waiting here (for tests).
    var waitingCount: Int { origins.values.reduce(0) { $0 + $1.waiting.count - $1.next } }
}
