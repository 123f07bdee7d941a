import Foundation

/// When a fetch schedule's runs fall due: every `interval` seconds from its anchor, each delayed by up to
/// `jitter × interval` (so that many schedules do not fetch at once), and only inside `window` when there is one.
/// Runs missed while the service was down, or while a run went on, are one run: the next is the first slot after now.
package struct FetchTiming: Sendable, Equatable {
    /// The shortest interval a schedule may have, in seconds.
    package static let minimumInterval = 60

    package var interval: Int
    /// A fraction of the interval, from 0 up to 1.
    package var jitter: Double
    /// The time of day runs may start, in UTC.
    package var window: DailyWindow?

    package init(interval: Int, jitter: Double = 0, window: DailyWindow? = nil) {
        (self.interval, self.jitter, self.window) = (interval, jitter, window)
    }

    /// The first run of a new schedule: now, or when the window opens. `draw`, from 0 up to 1, picks the jitter.
    package func firstRun(at now: Date, draw: Double) -> Date {
        placed(now, draw: draw)
    }

    /// The run after one that fell due at or before `now`: the first slot after `now` (every slot missed in between
    /// coalesced into it), jittered and moved into the window.
    package func nextRun(anchor: Date, after now: Date, draw: Double) -> Date {
        let elapsed = max(0, now.timeIntervalSince(anchor))
        let slots = (elapsed / Double(interval)).rounded(.down) + 1
        return placed(anchor.addingTimeInterval(slots * Double(interval)), draw: draw)
    }

    private func placed(_ slot: Date, draw: Double) -> Date {
        let delay = jitter * Double(interval) * min(max(draw, 0), 1)
        let due = slot.addingTimeInterval(delay)
        guard let window, !window.contains(due) else { return due }
        return window.nextOpening(after: due).addingTimeInterval(delay)
    }
}

extension TimeZone {
    /// UTC, which fetch windows are written in.
    package static let utc = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current
}
