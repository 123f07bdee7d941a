import Foundation
import GRDB

/// A date in the text GRDB stores dates as (`yyyy-MM-dd HH:mm:ss.SSS`, UTC), formatted by arithmetic: GRDB formats
/// every date through a `DateFormatter` (ICU), a tenth of the writer's time when it records webhook answers. Rows
/// written either way are the same text; dates are still read by GRDB's own parser. The hot rows and the dates
/// that the scheduler's and the outbox's statements bind go through here.
enum StoredDate {
    /// The date as it reads back once stored (to the millisecond, through GRDB's own parser).
    static func stored(_ date: Date?) -> Date? {
        date.flatMap { Date.fromDatabaseValue(text($0).databaseValue) }
    }

    static func text(_ date: Date?) -> String? {
        date.map(text)
    }

    static func text(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (days, millisecondOfDay) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (day, time) = millisecondOfDay < 0 ? (days - 1, millisecondOfDay + 86_400_000) : (days, millisecondOfDay)
        let (year, month, dayOfMonth) = civil(daysSince1970: day)
        var text = ""
        text.reserveCapacity(23)
        append(year, width: 4, to: &text)
        text.append("-")
        append(month, width: 2, to: &text)
        text.append("-")
        append(dayOfMonth, width: 2, to: &text)
        text.append(" ")
        append(time / 3_600_000, width: 2, to: &text)
        text.append(":")
        append(time / 60_000 % 60, width: 2, to: &text)
        text.append(":")
        append(time / 1000 % 60, width: 2, to: &text)
        text.append(".")
        append(time % 1000, width: 3, to: &text)
        return text
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civil(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func append(_ value: Int64, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width { text.append(String(repeating: "0", count: width - digits.count)) }
        text.append(digits)
    }
}
