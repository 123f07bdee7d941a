import Foundation

/// A date's calendar fields in UTC, to the millisecond (rounded to the nearest), computed by arithmetic rather
/// than through a formatter: the API's ISO 8601 text and the database's date text are both written from these.
package struct UTCDateTime: Equatable, Sendable {
    package var year: Int64
    package var month: Int64
    package var day: Int64
    package var hour: Int64
    package var minute: Int64
    package var second: Int64
    package var millisecond: Int64

    package init(_ date: Date) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (days, millisecondOfDay) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (dayNumber, time) = millisecondOfDay < 0 ? (days - 1, millisecondOfDay + 86_400_000) : (days, millisecondOfDay)
        (year, month, day) = Self.civil(daysSince1970: dayNumber)
        hour = time / 3_600_000
        minute = time / 60_000 % 60
        second = time / 1000 % 60
        millisecond = time % 1000
    }

    /// Appends the fields as `yyyy-MM-dd<separator>HH:mm:ss.SSS` to `bytes`.
    package func write(separator: UInt8, to bytes: inout [UInt8]) {
        Self.write(year, width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        Self.write(month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        Self.write(day, width: 2, to: &bytes)
        bytes.append(separator)
        Self.write(hour, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        Self.write(minute, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        Self.write(second, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        Self.write(millisecond, width: 3, to: &bytes)
    }

    private static func write(_ value: Int64, width: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        bytes.appendDecimal(value.magnitude, width: width)
    }

    /// The day counted from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    package static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
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
}
