import Foundation

/// When discretionary sessions' transfers run even while other work waits: inside the service's discretionary window
/// (`--discretionary-window`), and off-peak, while the service's bandwidth schedule sets no limit (`--bandwidth-schedule`).
/// Outside both, they run only while nothing else waits.
package struct DiscretionaryHours: Sendable {
    package let window: DailyWindow?
    package let schedule: BandwidthSchedule?

    package init(window: DailyWindow? = nil, schedule: BandwidthSchedule? = nil) {
        (self.window, self.schedule) = (window, schedule)
    }

    /// Whether `date` is within them.
    package func contains(_ date: Date) -> Bool {
        window?.contains(date) == true || schedule?.isOffPeak(at: date) == true
    }

    /// The next moment after `date` when they may begin; nil when they never do.
    package func nextOpening(after date: Date) -> Date? {
        [window?.nextOpening(after: date), schedule?.nextChange(after: date)].compactMap { $0 }.min()
    }
}
