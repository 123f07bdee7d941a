import Foundation

/// A bandwidth limit that follows the clock, as BITS's bandwidth schedules and rclone's `--bwlimit` timetable:
/// `mon-fri 08:00-18:00=10M, 22:00-06:00=off, *=50M`.
///
/// Rules are separated by commas. A rule is a daily window (``DailyWindow``, which may wrap past midnight) or `*`
/// (all day), with days before it or not (`mon-fri`, `sat`, a range may wrap: `fri-mon`; a window that wraps belongs
/// to the day it opens: `sat-sun *`, `fri 22:00-06:00`); then `=` and a rate in bytes per second: a number with `K`, `M` or `G` (1024,
/// 1024², 1024³) or none, at least 1024, or `off` for no limit. The first rule that holds the moment applies; where
/// none does there is no limit. Moments are read in the schedule's time zone.
package struct BandwidthSchedule: Sendable, Equatable, CustomStringConvertible {
    /// One period of the schedule and its rate.
    package struct Rule: Sendable, Equatable {
        /// The days it applies on, 1 (Sunday) to 7 (Saturday); nil: every day.
        package let days: Set<Int>?
        /// The time of day; nil: all day (`*`).
        package let window: DailyWindow?
        /// Bytes per second; nil: no limit (`off`).
        package let bytesPerSecond: Int64?
    }

    /// Why a schedule's text was refused, for the field's problem detail.
    package struct Invalid: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// The lowest rate a rule may set, as a task's `maxBytesPerSecond`.
    package static let minimumRate: Int64 = 1024

    package let rules: [Rule]
    package let timeZone: TimeZone

    /// Reads a schedule in `timeZone`; throws what is wrong with the first rule that is not one.
    package init(_ text: String, timeZone: TimeZone = .current) throws(Invalid) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var rules: [Rule] = []
        for (index, part) in parts.enumerated() {
            if let last = rules.last, last.window == nil, last.days == nil {
                throw Invalid(description: "rule \(index + 1) (`\(part)`) follows `*`, which holds every moment: it never applies")
            }
            rules.append(try Self.rule(part, number: index + 1, timeZone: timeZone))
        }
        self.rules = rules
        self.timeZone = timeZone
    }

    /// Reads a schedule set through the API or the CLI for a tenant or a session, whose moments are in UTC.
    package init(utc text: String) throws(Invalid) {
        try self.init(text, timeZone: .gmt)
    }

    /// The schedule as it is written back: rules in order, days and rates in their shortest form.
    package var description: String {
        rules.map { rule in
            let days = rule.days.map { Self.daysText($0) + " " } ?? ""
            let when = days + (rule.window?.description ?? "*")
            return when + "=" + (rule.bytesPerSecond.map(Self.rateText) ?? "off")
        }
        .joined(separator: ", ")
    }

    /// The rate at `date`, in bytes per second; nil: no limit.
    package func rate(at date: Date) -> Int64? {
        rule(at: date)?.bytesPerSecond
    }

    /// Whether `date` is off-peak: no rule limits it.
    package func isOffPeak(at date: Date) -> Bool {
        rate(at: date) == nil
    }

    /// The next moment after `date` when the rate may change: a window's opening or closing, or a midnight when some
    /// rule holds only on some days; nil when the rate never changes.
    package func nextChange(after date: Date) -> Date? {
        var seconds = Set(rules.compactMap(\.window).flatMap { [$0.opens, $0.closes] })
        if rules.contains(where: { $0.days != nil }) { seconds.insert(0) }
        return seconds.map { DailyWindow.next(secondOfDay: $0, after: date, timeZone: timeZone) }.min()
    }

    /// The first rule that holds `date`.
    private func rule(at date: Date) -> Rule? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let weekday = calendar.component(.weekday, from: date)
        return rules.first { rule in
            guard let window = rule.window else { return rule.days?.contains(weekday) ?? true }
            let second = window.secondOfDay(date)
            guard window.contains(secondOfDay: second) else { return false }
            guard let days = rule.days else { return true }
            // The part after midnight of a window that wraps belongs to the day it opened.
            return days.contains(window.openedTheDayBefore(secondOfDay: second) ? (weekday + 5) % 7 + 1 : weekday)
        }
    }

    // MARK: - Reading

    private static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    private static func rule(_ text: String, number: Int, timeZone: TimeZone) throws(Invalid) -> Rule {
        func invalid(_ reason: String) -> Invalid { Invalid(description: "rule \(number) (`\(text)`): \(reason)") }
        let sides = text.split(separator: "=", omittingEmptySubsequences: false)
        guard sides.count == 2 else { throw invalid("a rule is WHEN=RATE, as `mon-fri 08:00-18:00=10M` or `*=off`") }
        let when = sides[0].split(separator: " ", omittingEmptySubsequences: true)
        guard let rate = Self.rate(String(sides[1]).trimmingCharacters(in: .whitespaces)) else {
            throw invalid("the rate must be `off` or bytes per second of at least 1024, as 524288, 512K, 10M or 1G")
        }
        switch when.count {
        case 1 where when[0] == "*":
            return Rule(days: nil, window: nil, bytesPerSecond: rate)
        case 1, 2:
            let days = when.count == 2 ? Self.days(when[0].lowercased()) : nil
            guard when.count == 1 || days != nil else { throw invalid("the days must be a day or a range of days, as `sat` or `mon-fri`") }
            if when.count == 2, when[1] == "*" { return Rule(days: days, window: nil, bytesPerSecond: rate) }
            guard let window = DailyWindow(String(when[when.count - 1]), timeZone: timeZone) else {
                throw invalid("the time must be HH:MM-HH:MM (seconds allowed), opening and closing at different times")
            }
            return Rule(days: days, window: window, bytesPerSecond: rate)
        default:
            throw invalid("a rule's time is `*` or a window as `08:00-18:00`, after days or not: `mon-fri 08:00-18:00`, `sat-sun *`")
        }
    }

    /// `off` is no limit (`.some(nil)`); nil: not a rate.
    private static func rate(_ text: String) -> Int64?? {
        if text.lowercased() == "off" { return .some(nil) }
        let multipliers: [Character: Int64] = ["K": 1 << 10, "k": 1 << 10, "M": 1 << 20, "m": 1 << 20, "G": 1 << 30, "g": 1 << 30]
        let unit = text.last.flatMap { multipliers[$0] }
        let digits = unit == nil ? Substring(text) : text.dropLast()
        guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }), let number = Int64(digits) else { return nil }
        let (rate, overflow) = number.multipliedReportingOverflow(by: unit ?? 1)
        guard !overflow, rate >= minimumRate else { return nil }
        return .some(rate)
    }

    /// `mon`, or `mon-fri` (a range may wrap past Saturday), as weekdays from 1 (Sunday).
    private static func days(_ text: String) -> Set<Int>? {
        let ends = text.split(separator: "-", omittingEmptySubsequences: false).map { dayNames.firstIndex(of: String($0)) }
        guard (1...2).contains(ends.count), let first = ends[0], let last = ends[ends.count - 1] else { return nil }
        let count = (last - first + 7) % 7 + 1
        return Set((0..<count).map { (first + $0) % 7 + 1 })
    }

    private static func daysText(_ days: Set<Int>) -> String {
        // A range written back as one: the day whose day before is not in the set begins it.
        guard days.count < 7, let first = days.first(where: { !days.contains(($0 + 5) % 7 + 1) }) else { return "sun-sat" }
        let last = (first - 1 + days.count - 1) % 7 + 1
        return days.count == 1 ? dayNames[first - 1] : "\(dayNames[first - 1])-\(dayNames[last - 1])"
    }

    private static func rateText(_ rate: Int64) -> String {
        for (unit, size) in [("G", Int64(1) << 30), ("M", 1 << 20), ("K", 1 << 10)] where rate % size == 0 {
            return "\(rate / size)\(unit)"
        }
        return "\(rate)"
    }
}
