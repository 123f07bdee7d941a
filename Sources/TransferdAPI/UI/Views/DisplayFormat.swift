import Foundation

/// How the dashboard writes numbers and times for people: binary byte sizes, and UTC times that `<time>` elements
/// carry in ISO 8601 for scripts.
enum DisplayFormat {
    static func size(_ bytes: Int64) -> String {
        bytes.formatted(.byteCount(style: .binary, spellsOutZero: false))
    }

    /// An interval in its largest whole unit: `90 s`, `15 min`, `6 h`.
    static func interval(seconds: Int) -> String {
        if seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds % 60 == 0 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }

    /// `2026-11-24 18:02:11 UTC`.
    static func time(_ date: Date) -> String {
        date.formatted(
            Date.VerbatimFormatStyle(
                format:
                    "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) UTC",
                timeZone: .gmt,
                calendar: Calendar(identifier: .gregorian)
            )
        )
    }

    /// For `<time datetime>`.
    static func machineTime(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// A `<time>`'s values: `datetime` and the text.
    static func timeValues(_ date: Date) -> [String: Any] {
        ["datetime": machineTime(date), "text": time(date)]
    }
}
