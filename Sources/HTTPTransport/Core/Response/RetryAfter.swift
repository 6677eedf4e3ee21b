import Foundation

/// The `Retry-After` response header (RFC 9110 §10.2.3): how long a server asks a client to
/// wait, read by the retry policy and by the per-origin pause alike.
enum RetryAfter {
    /// Seconds to wait according to a `Retry-After` value: delta-seconds or an HTTP-date
    /// (IMF-fixdate, RFC 850 or asctime), never negative; `nil` when it cannot be read.
    static func delay(_ value: String, now: Date) -> TimeInterval? {
        let text = value.split(separator: " ").joined(separator: " ")
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
            return TimeInterval(text) ?? .greatestFiniteMagnitude
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }
}
