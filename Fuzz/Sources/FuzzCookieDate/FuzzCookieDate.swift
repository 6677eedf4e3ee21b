import Foundation
import FuzzSupport

@_cdecl("FuzzCookieDate_main")
func main(_ argc: CInt, _ argv: FuzzArguments) -> CInt { runFuzzer(argc, argv, fuzzCookieDate) }

/// Cookie dates. Invariants: a date read is whole seconds between 1601 and 9999; written back
/// as an IMF-fixdate (and, within 1970–2069, in the RFC 850 and asctime forms) it reads back as
/// the same instant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCookieDate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let text = String(decoding: input.rest(), as: UTF8.self)
    guard let date = Library.cookieDate(text) else { return 0 }
    let seconds = date.timeIntervalSince1970
    Invariant.check(seconds == seconds.rounded(.down), "fractional date \(seconds) from \(Invariant.show(text))")
    Invariant.check(seconds >= -11_644_473_600 && seconds <= 253_402_300_799,
                    "date \(seconds) out of 1601–9999 from \(Invariant.show(text))")
    let parts = civil(Int64(seconds))
    var forms = [fixdate(parts)]
    if (1970...2069).contains(parts.year) { forms += [rfc850(parts), asctime(parts)] }
    for form in forms {
        let again = Library.cookieDate(form)
        Invariant.check(again == date, "\(Invariant.show(text)) reads as \(form), which reads as \(Invariant.show(again))")
    }
    return 0
}

private struct Civil {
    var year, month, day, weekday, hour, minute, second: Int
}

private let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
private let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday

/// Howard Hinnant's `civil_from_days`, from Unix seconds.
private func civil(_ seconds: Int64) -> Civil {
    let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
    let secondOfDay = Int(seconds - Int64(days) * 86_400)
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    let weekday = ((days % 7) + 7) % 7
    return Civil(year: year, month: month, day: day, weekday: weekday,
                 hour: secondOfDay / 3_600, minute: secondOfDay / 60 % 60, second: secondOfDay % 60)
}

private func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

private func time(_ parts: Civil) -> String { "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))" }

/// `Sun, 06 Nov 1994 08:49:37 GMT` (years before 1000 padded to four digits).
private func fixdate(_ parts: Civil) -> String {
    let year = String(repeating: "0", count: max(0, 4 - String(parts.year).count)) + String(parts.year)
    return "\(weekdays[parts.weekday]), \(two(parts.day)) \(months[parts.month - 1]) \(year) \(time(parts)) GMT"
}

/// `Sunday, 06-Nov-94 08:49:37 GMT` (two-digit years: 70–99 are 19xx, 00–69 are 20xx).
private func rfc850(_ parts: Civil) -> String {
    "\(weekdays[parts.weekday])day, \(two(parts.day))-\(months[parts.month - 1])-\(two(parts.year % 100)) \(time(parts)) GMT"
}

/// `Sun Nov  6 08:49:37 1994`.
private func asctime(_ parts: Civil) -> String {
    let day = parts.day < 10 ? " \(parts.day)" : "\(parts.day)"
    return "\(weekdays[parts.weekday]) \(months[parts.month - 1]) \(day) \(time(parts)) \(parts.year)"
}
