import Foundation

/// A strict reader of the three HTTP-date forms of RFC 9110 §5.6.7, for `Expires`, where
/// anything else must mean "already expired" (RFC 9111 §5.3):
///
///     Sun, 06 Nov 1994 08:49:37 GMT    IMF-fixdate
///     Sunday, 06-Nov-94 08:49:37 GMT   obsolete RFC 850 form
///     Sun Nov  6 08:49:37 1994         asctime
///
/// Names, spacing and digit counts are exactly as the grammar writes them (case-sensitive, as
/// its `%s` strings are); the weekday is not checked against the date. Cookies keep their own,
/// lenient parser (`CookieDateParser`): RFC 6265 asks for leniency there.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// Seconds since 1970, or nil when `text` is not exactly one of the three forms or names no
    /// real time. `now` (seconds since 1970) places the RFC 850 form's two-digit year: a year
    /// more than 50 years ahead of it is taken from the century before.
    static func parse(_ text: String, now: Double) -> Double? {
        let bytes = Array(text.utf8)
        return imfFixdate(bytes) ?? rfc850(bytes, now: now) ?? asctime(bytes)
    }

    /// `day-name "," SP 2DIGIT SP month SP 4DIGIT SP time SP "GMT"`.
    private static func imfFixdate(_ b: [UInt8]) -> Double? {
        guard b.count == 29, days.contains(string(b[0..<3])), b[3] == comma, b[4] == space, b[7] == space,
              b[11] == space, b[16] == space, b[25] == space, string(b[26...]) == "GMT",
              let day = number(b[5..<7]), let month = month(b[8..<11]), let year = number(b[12..<16])
        else { return nil }
        return timestamp(year: year, month: month, day: day, time: b[17..<25])
    }

    /// `day-name-l "," SP 2DIGIT "-" month "-" 2DIGIT SP time SP "GMT"`.
    private static func rfc850(_ b: [UInt8], now: Double) -> Double? {
        guard let separator = b.firstIndex(of: comma), longDays.contains(string(b[..<separator])),
              b.count == separator + 24
        else { return nil }
        let rest = Array(b[(separator + 1)...])
        guard rest[0] == space, rest[3] == dash, rest[7] == dash, rest[10] == space, rest[19] == space,
              string(rest[20...]) == "GMT", let day = number(rest[1..<3]), let month = month(rest[4..<7]),
              let shortYear = number(rest[8..<10])
        else { return nil }
        // RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
        let currentYear = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "GMT") ?? .current,
                                                                          from: Date(timeIntervalSince1970: now)).year ?? 1970
        var year = currentYear - currentYear % 100 + shortYear
        if year > currentYear + 50 { year -= 100 }
        return timestamp(year: year, month: month, day: day, time: rest[11..<19])
    }

    /// `day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time SP 4DIGIT`.
    private static func asctime(_ b: [UInt8]) -> Double? {
        guard b.count == 24, days.contains(string(b[0..<3])), b[3] == space, b[7] == space, b[10] == space,
              b[19] == space, let month = month(b[4..<7]), let year = number(b[20..<24])
        else { return nil }
        let day = b[8] == space ? number(b[9..<10]) : number(b[8..<10])
        guard let day else { return nil }
        return timestamp(year: year, month: month, day: day, time: b[11..<19])
    }

    /// `2DIGIT ":" 2DIGIT ":" 2DIGIT` on the given date, when the date exists and the time is
    /// within a day (a leap second, `:60`, allowed).
    private static func timestamp(year: Int, month: Int, day: Int, time: ArraySlice<UInt8>) -> Double? {
        let t = Array(time)
        guard t.count == 8, t[2] == colon, t[5] == colon, let hour = number(t[0..<2]), let minute = number(t[3..<5]),
              let second = number(t[6..<8]), hour < 24, minute < 60, second <= 60,
              day >= 1, day <= CivilDate.daysInMonth(month, year: year)
        else { return nil }
        let seconds = CivilDate.daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
        return Double(seconds)
    }

    private static func month(_ bytes: ArraySlice<UInt8>) -> Int? {
        months.firstIndex(of: string(bytes)).map { $0 + 1 }
    }

    /// Digits only, as a number.
    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    private static func string(_ bytes: some Collection<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    private static let space = UInt8(ascii: " ")
    private static let comma = UInt8(ascii: ",")
    private static let colon = UInt8(ascii: ":")
    private static let dash = UInt8(ascii: "-")
}
