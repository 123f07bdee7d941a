import Foundation
import Testing
import TransferdDomain

/// Which rule holds a moment, when the rate may change next, and what is refused, in UTC.
@Suite struct BandwidthScheduleTests {
    /// The moment `days` days and `time` (HH:MM:SS) after Monday's midnight.
    static func at(_ days: Int, _ time: String) -> Date {
        let fields = time.split(separator: ":").map { Int($0)! }
        return Date(timeIntervalSince1970: Self.mondayMidnight + Double(days * 86_400 + fields[0] * 3600 + fields[1] * 60 + fields[2]))
    }

    static let mondayMidnight: Double = 1_795_996_800  // Monday 2026-11-30 00:00:00 UTC

    static let workHours = "mon-fri 08:00-18:00=10M, 22:00-06:00=off, *=50M"
    static let rates: [(schedule: String, days: Int, time: String, rate: Int64?)] = [
        (workHours, 0, "07:59:59", 50 << 20),
        (workHours, 0, "08:00:00", 10 << 20),
        (workHours, 4, "17:59:59", 10 << 20),
        (workHours, 0, "18:00:00", 50 << 20),
        (workHours, 0, "23:00:00", nil),
        (workHours, 1, "05:59:59", nil),
        (workHours, 1, "06:00:00", 50 << 20),
        (workHours, 5, "10:00:00", 50 << 20),
        // a window that wraps belongs to the day it opens
        ("fri 22:00-06:00=1M", 4, "23:00:00", 1 << 20),
        ("fri 22:00-06:00=1M", 5, "03:00:00", 1 << 20),
        ("fri 22:00-06:00=1M", 4, "03:00:00", nil),
        ("fri 22:00-06:00=1M", 5, "23:00:00", nil),
        // days all day, and a range that wraps past Saturday
        ("sat-sun *=off, *=1M", 5, "12:00:00", nil),
        ("sat-sun *=off, *=1M", 6, "23:59:59", nil),
        ("sat-sun *=off, *=1M", 7, "00:00:00", 1 << 20),
        ("fri-mon *=2K", 0, "12:00:00", 2048),
        ("fri-mon *=2K", 1, "12:00:00", nil),
        ("fri-mon *=2K", 6, "12:00:00", 2048),
        // no rule holds: no limit
        ("09:00-10:00=1024", 0, "10:00:00", nil),
        ("09:00-10:00=1024", 0, "09:30:00", 1024),
    ]

    @Test(arguments: rates)
    func theFirstRuleHoldingTheMomentSetsTheRate(schedule: String, days: Int, time: String, rate: Int64?) throws {
        let schedule = try BandwidthSchedule(schedule, timeZone: .gmt)
        #expect(schedule.rate(at: Self.at(days, time)) == rate)
        #expect(schedule.isOffPeak(at: Self.at(days, time)) == (rate == nil))
    }

    static let changes: [(schedule: String, days: Int, time: String, next: (days: Int, time: String)?)] = [
        ("mon-fri 08:00-18:00=10M", 0, "07:00:00", (0, "08:00:00")),
        ("mon-fri 08:00-18:00=10M", 0, "08:00:00", (0, "18:00:00")),
        ("mon-fri 08:00-18:00=10M", 0, "19:00:00", (1, "00:00:00")),
        ("22:00-06:00=1M", 0, "23:00:00", (1, "06:00:00")),
        ("*=1M", 0, "12:00:00", nil),
    ]

    @Test(arguments: changes)
    func theRateMayChangeOnlyAtAWindowsEdgeOrAMidnightOfDays(
        schedule: String,
        days: Int,
        time: String,
        next: (days: Int, time: String)?
    ) throws {
        let schedule = try BandwidthSchedule(schedule, timeZone: .gmt)
        #expect(schedule.nextChange(after: Self.at(days, time)) == next.map { Self.at($0.days, $0.time) })
    }

    static let refused: [(text: String, detail: String)] = [
        ("", "rule 1 (``): a rule is WHEN=RATE"),
        ("*=off, 08:00-09:00=1M", "rule 2 (`08:00-09:00=1M`) follows `*`"),
        ("08:00-08:00=1M", "rule 1 (`08:00-08:00=1M`): the time must be HH:MM-HH:MM"),
        ("25:00-01:00=1M", "the time must be HH:MM-HH:MM"),
        ("mon-fry 08:00-09:00=1M", "the days must be a day or a range of days"),
        ("08:00-09:00=1000", "the rate must be `off` or bytes per second of at least 1024"),
        ("08:00-09:00=10X", "the rate must be"),
        ("08:00-09:00=-1M", "the rate must be"),
        ("08:00-09:00=99999999999G", "the rate must be"),
        ("08:00-09:00", "a rule is WHEN=RATE"),
        ("mon 08:00-09:00 x=1M", "a rule's time is `*` or a window"),
        ("08:00-09:00=1M,", "rule 2 (``)"),
        // a character whose capital is two letters, and digits of other scripts
        ("08:00-09:00=1ß", "the rate must be"),
        ("08:00-09:00=١٢٣٤٥", "the rate must be"),
        ("08:00-09:00=+2048", "the rate must be"),
    ]

    @Test(arguments: refused)
    func aScheduleThatIsNotOneIsRefusedWithItsRuleAndWhy(text: String, detail: String) {
        #expect {
            try BandwidthSchedule(text, timeZone: .gmt)
        } throws: { error in
            "\(error)".contains(detail)
        }
    }

    @Test func aScheduleIsWrittenBackInItsShortestForm() throws {
        let schedule = try BandwidthSchedule("MON-FRI 08:00-18:00=10485760,  sat *=OFF, 22:00:30-06:00=1536, *=1G", timeZone: .gmt)
        #expect(schedule.description == "mon-fri 08:00-18:00=10M, sat *=off, 22:00:30-06:00=1536, *=1G")
        #expect(try BandwidthSchedule(schedule.description, timeZone: .gmt) == schedule)
    }
}
