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
    /// The sequence of its first delivery still pending, if any: the log is kept from there on.
    package var firstPendingDelivery: Int64?
    /// When its oldest background task still kept ended.
    package var oldestEndedBackgroundTask: Date?
    /// Its tasks not completed yet.
    package var unfinishedTasks: Int
    /// When it was invalidated; nil while it lives.
    package var invalidatedAt: Date?
    /// Whether `DELETE` removed it from the API: what it holds goes whatever its retention.
    package var deleted: Bool

    package init(
        id: Int64,
        tenantID: Int64,
        retentionPeriod: Double,
        historyRetention: Double?,
        eventsTrimmedThrough: Int64 = 0,
        oldestFinishedTask: Date? = nil,
        oldestEvent: Date? = nil,
        firstPendingDelivery: Int64? = nil,
        oldestEndedBackgroundTask: Date? = nil,
        unfinishedTasks: Int = 0,
        invalidatedAt: Date? = nil,
        deleted: Bool = false
    ) {
        (self.id, self.tenantID, self.retentionPeriod, self.historyRetention) = (id, tenantID, retentionPeriod, historyRetention)
        self.eventsTrimmedThrough = eventsTrimmedThrough
        (self.oldestFinishedTask, self.oldestEvent, self.firstPendingDelivery) = (oldestFinishedTask, oldestEvent, firstPendingDelivery)
        self.oldestEndedBackgroundTask = oldestEndedBackgroundTask
        (self.unfinishedTasks, self.invalidatedAt, self.deleted) = (unfinishedTasks, invalidatedAt, deleted)
    }
}
