import Foundation
import TransferdJSON

/// The dates of HTTP headers (RFC 9110 §5.6.7): IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) written, and read
/// along with the two obsolete forms recipients must take (`Sunday, 06-Nov-94 08:49:37 GMT` and asctime's
/// `Sun Nov  6 08:49:37 1994`).
///
/// Written by hand over `UTCDateTime`'s calendar arithmetic: Foundation's `DateFormatter` keeps memory it
/// never frees for some inputs (found by fuzzing `Retry-After`), and these headers come from servers nobody vetted.
package enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    package static func string(from date: Date) -> String {
        let fields = UTCDateTime(Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
        let days = UTCDateTime.daysSince1970(year: fields.year, month: fields.month, day: fields.day)
        let weekday = weekdays[Int(((days % 7) + 11) % 7)]  // 1970-01-01 was a Thursday
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let clock = "\(padded(fields.hour, 2)):\(padded(fields.minute, 2)):\(padded(fields.second, 2))"
        return "\(weekday), \(padded(fields.day, 2)) \(months[Int(fields.month - 1)]) \(padded(fields.year, 4)) \(clock) GMT"
    }

    /// The date `text` names in any of the three forms; nil for anything else.
    package static func date(from text: String) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        let fields: (day: Substring, month: Substring, year: Substring, time: Substring)
        switch parts.count {
        case 6 where parts[0].hasSuffix(",") && parts[5] == "GMT":  // IMF-fixdate
            fields = (parts[1], parts[2], parts[3], parts[4])
        case 4 where parts[0].hasSuffix(",") && parts[3] == "GMT":  // RFC 850: two-digit year
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard date.count == 3, let short = number(date[2], digits: 2...2) else { return nil }
            fields = (date[0], date[1], Substring(String(short < 70 ? 2000 + short : 1900 + short)), parts[2])
        case 5:  // asctime
            fields = (parts[2], parts[1], parts[4], parts[3])
        default:
            return nil
        }
        let time = fields.time.split(separator: ":", omittingEmptySubsequences: false)
        guard let month = months.firstIndex(of: String(fields.month)), let day = number(fields.day, digits: 1...2),
            let year = number(fields.year, digits: 4...4), (1...daysIn(month: month + 1, year: year)).contains(day), time.count == 3,
            let hour = number(time[0], digits: 2...2), let minute = number(time[1], digits: 2...2),
            let second = number(time[2], digits: 2...2), hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = UTCDateTime.daysSince1970(year: year, month: Int64(month + 1), day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    /// `text` as a number when it is `digits` ASCII digits.
    private static func number(_ text: Substring, digits: ClosedRange<Int>) -> Int64? {
        guard digits.contains(text.utf8.count), text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return Int64(text)
    }

    private static func daysIn(month: Int, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
