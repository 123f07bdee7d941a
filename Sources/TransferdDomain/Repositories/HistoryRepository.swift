import Foundation

/// The removal of history past keeping (``HistoryRetention``), in bounded batches that are each their own short
/// transaction, so that a year of it goes without holding up the service.
package protocol HistoryRepository {
    /// The sessions after `id`, in order of id, with the oldest history each holds.
    func sessions(after id: Int64, limit: Int) async throws -> [HistorySession]
    /// Removes at most `limit` of the session's tasks that finished before `finishedBefore` and hold nothing more:
    /// no content the service keeps, no resume data, no reply, no delivery of their events still pending, and no
    /// upload that still sends their content. Returns how many went.
    func removeFinishedTasks(sessionID: Int64, finishedBefore: Date, limit: Int) async throws -> Int
    /// At most `limit` of the completed tasks of a deleted session, whatever they keep: their content goes before
    /// their rows (``removeTasks(sessionID:ids:)``).
    func completedTasks(sessionID: Int64, limit: Int) async throws -> [TransferTask]
    /// Removes the session's completed tasks with these row ids; returns how many went.
    func removeTasks(sessionID: Int64, ids: [Int64]) async throws -> Int
    /// The session's oldest events after `sequence`, at most `limit`, in order.
    func oldestEvents(sessionID: Int64, after sequence: Int64, limit: Int) async throws -> [EventLogTrim.EventAge]
    /// The sequence of the session's first delivery still pending; nil when none is.
    func firstPendingDelivery(sessionID: Int64) async throws -> Int64?
    /// Removes the session's events from the start of its log, which follows `trimmedThrough`, through `sequence`,
    /// with their deliveries (pending ones only when `deleted`) and their attempts, and records where the session's
    /// log begins, and, unless `deleted`, where its tenant's stream does: a deleted session's events leave no mark
    /// there, which would refuse the readers of every other session. Returns the rows removed.
    ///
    /// Each statement looks only after `trimmedThrough`: on PostgreSQL the rows removed before stay in the indexes
    /// until a vacuum, and a batch that looked from the log's start would step over all of them again.
    func trimEvents(
        sessionID: Int64,
        tenantID: Int64,
        after trimmedThrough: Int64,
        through sequence: Int64,
        deleted: Bool
    ) async throws -> HistoryRemoval
    /// Removes at most `limit` of the session's background tasks that ended before `endedBefore`; returns how many.
    func removeEndedBackgroundTasks(sessionID: Int64, endedBefore: Date, limit: Int) async throws -> Int
    /// Removes the session's row, with its webhook, fetch schedules and background tasks, when it holds no task and
    /// no event any more; returns whether it went.
    func removeSession(id: Int64) async throws -> Bool
    /// Gives the database's free pages back to the file system, at most `pages` of them (SQLite's incremental
    /// vacuum), and returns how many are still free; PostgreSQL's autovacuum needs nothing (0).
    func reclaimSpace(pages: Int) async throws -> Int
    /// The database's size on disk, in bytes.
    func databaseBytes() async throws -> Int64
}

/// What one trim of an event log removed.
package struct HistoryRemoval: Sendable, Equatable {
    package var events = 0
    package var deliveries = 0
    package var attempts = 0

    package init(events: Int = 0, deliveries: Int = 0, attempts: Int = 0) {
        self.events = events
        self.deliveries = deliveries
        self.attempts = attempts
    }
}
