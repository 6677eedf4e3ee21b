import Foundation

/// The cookie-date parser of RFC 6265 §5.1.1, used for the `Expires` attribute. It is lenient
/// the way browsers are: it picks a time, a day of month, a month and a year out of any mix of
/// tokens and ignores everything else (weekday names, time zones, comments); the result is
/// always UTC.
enum CookieDateParser {
    /// The instant `string` denotes, or nil when the RFC algorithm rejects it (a field missing
    /// or out of range, a year before 1601, or a day that does not exist in its month).
    static func parse(_ string: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var dayOfMonth: Int?
        var month: Int?
        var year: Int?

        for token in tokens(of: Array(string.utf8)) {
            if time == nil, let parsed = matchTime(token) {
                time = parsed
            } else if dayOfMonth == nil, let parsed = matchDigits(token, minCount: 1, maxCount: 2) {
                dayOfMonth = parsed
            } else if month == nil, let parsed = matchMonth(token) {
                month = parsed
            } else if year == nil, let parsed = matchDigits(token, minCount: 2, maxCount: 4) {
                year = parsed
            }
        }

        guard let time, let dayOfMonth, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(dayOfMonth), year >= 1601,
              time.hour <= 23, time.minute <= 59, time.second <= 59,
              dayOfMonth <= CivilDate.daysInMonth(month, year: year)
        else { return nil }

        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: dayOfMonth)
        let seconds = days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    // MARK: - Tokens (§5.1.1 step 1)

    /// `delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E`.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x20...0x2F, 0x3B...0x40, 0x5B...0x60, 0x7B...0x7E: return true
        default: return false
        }
    }

    private static func tokens(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(whereSeparator: isDelimiter)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Reads a run of `minCount...maxCount` digits at `index`; the run must not continue with a
    /// further digit. Returns its value and the index after it.
    private static func digitRun(
        _ token: ArraySlice<UInt8>, from index: Int, minCount: Int, maxCount: Int
    ) -> (value: Int, end: Int)? {
        var end = index
        var value = 0
        while end < token.endIndex, isDigit(token[end]) {
            if end - index == maxCount { return nil }
            value = value * 10 + Int(token[end] - 0x30)
            end += 1
        }
        guard end - index >= minCount else { return nil }
        return (value, end)
    }

    /// `day-of-month = 1*2DIGIT ( non-digit *OCTET )` and `year = 2*4DIGIT ( non-digit *OCTET )`.
    private static func matchDigits(_ token: ArraySlice<UInt8>, minCount: Int, maxCount: Int) -> Int? {
        digitRun(token, from: token.startIndex, minCount: minCount, maxCount: maxCount)?.value
    }

    /// `time = hms-time ( non-digit *OCTET )`, `hms-time = time-field ":" time-field ":" time-field`.
    private static func matchTime(_ token: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
        var fields: [Int] = []
        var index = token.startIndex
        for position in 0..<3 {
            guard let run = digitRun(token, from: index, minCount: 1, maxCount: 2) else { return nil }
            fields.append(run.value)
            index = run.end
            if position < 2 {
                guard index < token.endIndex, token[index] == UInt8(ascii: ":") else { return nil }
                index += 1
            }
        }
        return (fields[0], fields[1], fields[2])
    }

    private static let monthNames: [[UInt8]] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ].map { Array($0.utf8) }

    /// `month = ( "jan" / … / "dec" ) *OCTET`, case-insensitive; returns 1...12.
    private static func matchMonth(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = token.prefix(3).map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 + 0x20 : $0 }
        guard let index = monthNames.firstIndex(of: prefix) else { return nil }
        return index + 1
    }
}
