import Foundation

/// A session as the history's removal sees it: its retention periods, where its event log begins, and the oldest of
/// each kind of history it holds, so that a pass over many sessions touches only those with something past keeping.
package struct HistorySession: Sendable, Equatable {
    package var id: Int64
    package var tenantID: Int64
    /// Its content retention, in seconds.
    package var retentionPeriod: Double
    /// Its own history retention, in seconds; nil takes the service's.
    package var historyRetention: Double?
    /// The last sequence removed from its event log (0: none); the log begins after it.
    package var eventsTrimmedThrough: Int64
    /// When its oldest finished task still kept finished.
    package var oldestFinishedTask: Date?
    /// When the oldest event still in its log was written.
    package var oldestEvent: Date?
    /// When its oldest background task still kept ended.
    package var oldestEndedBackgroundTask: Date?
    /// The sequence of its newest event.
    package var lastSequence: Int64 = 0
    /// Its tasks not completed yet.
    package var unfinishedTasks = 0
    /// When it was invalidated; nil while it lives.
    package var invalidatedAt: Date?
    /// Whether `DELETE` removed it from the API: what it holds goes whatever its retention.
    package var deleted = false

    package init(
        id: Int64,
        tenantID: Int64,
        retentionPeriod: Double,
        historyRetention: Double?,
        eventsTrimmedThrough: Int64,
        oldestFinishedTask: Date?,
        oldestEvent: Date?,
        oldestEndedBackgroundTask: Date?
    ) {
        self.id = id
        self.tenantID = tenantID
        self.retentionPeriod = retentionPeriod
        self.historyRetention = historyRetention
        self.eventsTrimmedThrough = eventsTrimmedThrough
        self.oldestFinishedTask = oldestFinishedTask
        self.oldestEvent = oldestEvent
        self.oldestEndedBackgroundTask = oldestEndedBackgroundTask
    }
}
