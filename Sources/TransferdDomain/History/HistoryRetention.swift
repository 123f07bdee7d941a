import Foundation

/// How long a session's history is kept once it is over: its finished tasks' rows, its events with their webhook
/// deliveries, its ended background tasks. A session keeps them for the longer of its content retention
/// (`retentionPeriod`) and its history retention (`historyRetention`, or the service's `--history-retention`), so
/// that no row goes while the content it describes is still served.
package struct HistoryRetention: Sendable, Equatable {
    /// The service's history retention, in seconds, for sessions that set none.
    package let defaultPeriod: Double

    package init(defaultPeriod: Double) {
        self.defaultPeriod = defaultPeriod
    }

    /// The seconds `session`'s history is kept for.
    package func period(of session: HistorySession) -> Double {
        max(session.retentionPeriod, session.historyRetention ?? defaultPeriod)
    }

    /// What was over before this date is past keeping, at `now`.
    package func keptSince(_ session: HistorySession, at now: Date) -> Date {
        now.addingTimeInterval(-period(of: session))
    }
}
