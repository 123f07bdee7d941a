import Foundation

/// A time of day, every day: when discretionary sessions' transfers run (`--discretionary-window 01:00-06:00`, like
/// the system's choice of a good moment for a discretionary NSURLSession), when a fetch schedule may run, and a
/// period of a bandwidth schedule. A window may wrap past midnight (`22:00-06:00`).
package struct DailyWindow: Sendable, Equatable, CustomStringConvertible {
    /// Seconds after midnight when it opens and when it closes.
    package let opens: Int
    package let closes: Int
    package let timeZone: TimeZone

    /// Reads `HH:MM-HH:MM` (seconds allowed: `HH:MM:SS`); nil for anything else, or a window that closes as it opens.
    package init?(_ text: String, timeZone: TimeZone = .current) {
        let bounds = text.split(separator: "-", omittingEmptySubsequences: false).map { Self.secondsOfDay(String($0)) }
        guard bounds.count == 2, let opens = bounds[0], let closes = bounds[1], opens != closes else { return nil }
        (self.opens, self.closes, self.timeZone) = (opens, closes, timeZone)
    }

    package var description: String {
        "\(Self.clockTime(opens))-\(Self.clockTime(closes))"
    }

    /// Whether `date` falls inside the window.
    package func contains(_ date: Date) -> Bool {
        contains(secondOfDay: secondOfDay(date))
    }

    /// Whether the moment `second` seconds after midnight falls inside the window.
    package func contains(secondOfDay second: Int) -> Bool {
        opens < closes ? (opens..<closes).contains(second) : second >= opens || second < closes
    }

    /// Whether the window wraps past midnight and the moment `second` seconds after midnight is in the part after it,
    /// which opened the day before.
    package func openedTheDayBefore(secondOfDay second: Int) -> Bool {
        opens > closes && second < closes
    }

    /// The next moment after `date` when the window opens.
    package func nextOpening(after date: Date) -> Date {
        Self.next(secondOfDay: opens, after: date, timeZone: timeZone)
    }

    /// The next moment after `date` that is `second` seconds after a midnight in `timeZone`.
    package static func next(secondOfDay second: Int, after date: Date, timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let wait = (second - secondOfDay(date, in: calendar) + 86_400) % 86_400
        let startOfSecond = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        return startOfSecond.addingTimeInterval(TimeInterval(wait == 0 ? 86_400 : wait))
    }

    /// The seconds since the midnight before `date`, in the window's time zone.
    package func secondOfDay(_ date: Date) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return Self.secondOfDay(date, in: calendar)
    }

    private static func secondOfDay(_ date: Date, in calendar: Calendar) -> Int {
        let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
        return (parts.hour ?? 0) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0)
    }

    private static func secondsOfDay(_ text: String) -> Int? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        let numbers = fields.compactMap { $0.count == 2 ? Int($0) : nil }
        guard (2...3).contains(fields.count), numbers.count == fields.count else { return nil }
        let (hour, minute, second) = (numbers[0], numbers[1], numbers.count == 3 ? numbers[2] : 0)
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    private static func clockTime(_ seconds: Int) -> String {
        let text = String(format: "%02d:%02d", seconds / 3600, seconds / 60 % 60)
        return seconds % 60 == 0 ? text : text + String(format: ":%02d", seconds % 60)
    }
}
