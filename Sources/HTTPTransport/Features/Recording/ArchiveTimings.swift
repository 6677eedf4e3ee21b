import Foundation

extension ArchiveTimings {
    /// HAR's phases from libcurl's cumulative times: DNS, connect (TLS included, as HAR asks,
    /// and also given alone as `ssl`), wait until the first byte, and receive. libcurl reports no
    /// moment between sending and waiting, so `send` is 0 and the sending is part of `wait`.
    /// A reused connection (or a cache hit) has no DNS or connect phase: -1.
    init(_ metrics: TransferMetrics) {
        let connected = max(metrics.connect, metrics.tlsHandshake)
        let fresh = !metrics.connectionReused && metrics.connect > 0
        let firstByte = metrics.firstByte > 0 ? metrics.firstByte : metrics.total
        self.init(
            dns: fresh ? Self.milliseconds(metrics.nameLookup) : -1,
            connect: fresh ? Self.milliseconds(connected - metrics.nameLookup) : -1,
            send: 0,
            wait: Self.milliseconds(firstByte - connected),
            receive: Self.milliseconds(metrics.total - firstByte),
            ssl: fresh && metrics.tlsHandshake > 0 ? Self.milliseconds(metrics.tlsHandshake - metrics.connect) : -1)
    }

    /// The entry's `time`: the sum of the phases that happened (`ssl` is inside `connect`).
    var total: Double {
        [blocked, dns, connect, send, wait, receive].filter { $0 > 0 }.reduce(0, +)
    }

    /// Seconds as milliseconds, to the microsecond, never negative (or NaN, which JSON cannot hold).
    private static func milliseconds(_ seconds: TimeInterval) -> Double {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return (seconds * 1_000_000).rounded() / 1000
    }
}
