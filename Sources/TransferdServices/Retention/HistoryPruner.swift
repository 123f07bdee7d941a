import Foundation
import ServiceLifecycle
import TransferdDomain
import TransferdEngine
import TransferdStorage

/// Forgets history past keeping (``HistoryRetention``), every `interval`: finished tasks' rows, the start of each
/// session's event log with its webhook deliveries and their attempts (``EventLogTrim``), ended background tasks, and
/// invalidated sessions once nothing is left under them. A deleted session (``SessionService/delete``) loses all it
/// holds, whatever its retention, its tasks' content first, once its cancelled transfers have stopped.
///
/// It removes in batches, each its own short transaction, so that a year of history goes without holding up the
/// API, and looks only at sessions with something past keeping. On SQLite the freed pages go back to the file
/// system after each pass, a few MiB a transaction. Whatever is removed is counted (`transferd_history_rows_removed_total`); an instance
/// stopped partway leaves nothing half-removed, and any instance's next pass goes on.
package struct HistoryPruner: Service {
    /// Sessions read at once.
    static let sessionsPerRead = 500
    /// Pages given back to the file system in one transaction (4 KiB each: 4 MiB), which moves as many.
    static let pagesPerStep = 1_024

    let store: any Store
    let kept: KeptContent
    let retention: HistoryRetention
    let pace: RemovalPace
    let interval: Duration
    let loop: WakeUpLoop
    let metrics: ServiceMetrics

    package init(
        store: any Store,
        files: FileStore,
        objects: ObjectStores,
        retention: HistoryRetention,
        pace: RemovalPace = .gentle,
        interval: Duration,
        loop: WakeUpLoop,
        metrics: ServiceMetrics
    ) {
        (self.store, self.retention, self.pace) = (store, retention, pace)
        kept = KeptContent(files: files, objects: objects, logger: loop.logger)
        (self.interval, self.loop, self.metrics) = (interval, loop, metrics)
    }

    package func run() async throws {
        await loop.run("remove history past keeping") {
            let now = loop.clock.now
            try await cancelWhenGracefulShutdown { try await prune(at: now) }
            return now.addingTimeInterval(interval.timeInterval)
        }
    }

    /// One pass over every session; one that removed nothing writes nothing.
    package func prune(at now: Date) async throws {
        var (cursor, removed) = (Int64(0), 0)
        while true {
            let after = cursor
            let sessions = try await store.read { try await $0.history.sessions(after: after, limit: Self.sessionsPerRead) }
            for session in sessions { removed += try await prune(session, at: now) }
            guard let last = sessions.last, sessions.count == Self.sessionsPerRead else { break }
            cursor = last.id
        }
        if removed > 0 { try await reclaimSpace() }
    }

    /// Gives the pages the removal freed back to the file system, a step at a time, while they become fewer.
    private func reclaimSpace() async throws {
        var free = Int.max
        while free > 0 {
            try Task.checkCancellation()
            let left = try await paced { try await $0.history.reclaimSpace(pages: Self.pagesPerStep) }
            if left >= free { break }
            free = left
        }
    }

    /// Removes what `session` holds past keeping; returns the rows removed.
    private func prune(_ session: HistorySession, at now: Date) async throws -> Int {
        if session.deleted { return try await remove(session) }
        let keptSince = retention.keptSince(session, at: now)
        var removed = 0
        if let oldest = session.oldestFinishedTask, oldest < keptSince {
            removed += try await inBatches("tasks") { repositories in
                try await repositories.history.removeFinishedTasks(sessionID: session.id, finishedBefore: keptSince, limit: pace.batch)
            }
        }
        if let oldest = session.oldestEndedBackgroundTask, oldest < keptSince {
            removed += try await inBatches("background_tasks") { repositories in
                try await repositories.history.removeEndedBackgroundTasks(sessionID: session.id, endedBefore: keptSince, limit: pace.batch)
            }
        }
        if EventLogTrim.mayTrim(session, keptSince: keptSince) { removed += try await trimEvents(of: session, keptSince: keptSince) }
        if let invalidated = session.invalidatedAt, invalidated < keptSince { removed += try await removeRow(of: session) }
        return removed
    }

    /// Removes all a deleted session holds, then its row; waits for a later pass while transfers it cancelled stop.
    /// Returns the rows removed.
    private func remove(_ session: HistorySession) async throws -> Int {
        guard session.unfinishedTasks == 0 else { return 0 }
        var removed = 0
        while true {
            try Task.checkCancellation()
            let tasks = try await store.read { try await $0.history.completedTasks(sessionID: session.id, limit: pace.batch) }
            for task in tasks {
                await kept.removeContent(of: task)
                await kept.removeReply(of: task)
            }
            let ids = tasks.map(\.rowID)
            let batch = try await paced { try await $0.history.removeTasks(sessionID: session.id, ids: ids) }
            metrics.historyRemoved("tasks", batch)
            removed += batch
            if tasks.count < pace.batch { break }
        }
        removed += try await inBatches("background_tasks") { repositories in
            try await repositories.history.removeEndedBackgroundTasks(sessionID: session.id, endedBefore: .distantFuture, limit: pace.batch)
        }
        removed += try await trimEvents(of: session, keptSince: .distantFuture)
        return removed + (try await removeRow(of: session))
    }

    /// Removes the session's row once nothing is left under it; returns whether it went (1) or not (0).
    private func removeRow(of session: HistorySession) async throws -> Int {
        let removed = try await store.write { try await $0.history.removeSession(id: session.id) } ? 1 : 0
        metrics.historyRemoved("sessions", removed)
        return removed
    }

    /// Runs `batch` in a write transaction of its own, then rests as the pace asks, so that the API's writes and reads
    /// beside it wait little.
    private func paced<T: Sendable>(_ batch: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        let began = ContinuousClock.now
        let result = try await store.write(batch)
        if pace.restPerWork > 0 { try await Task.sleep(for: (ContinuousClock.now - began) * pace.restPerWork) }
        return result
    }

    /// Runs `removal` in transactions of its own until it removes less than a batch; returns the rows removed.
    private func inBatches(_ table: String, _ removal: @escaping @Sendable (any Repositories) async throws -> Int) async throws -> Int {
        var total = 0
        while true {
            try Task.checkCancellation()
            let removed = try await paced(removal)
            metrics.historyRemoved(table, removed)
            total += removed
            if removed < pace.batch { return total }
        }
    }

    /// Trims the session's event log batch by batch; each batch reads where it may trim to in the transaction that
    /// trims, so that a delivery pending since the pass began keeps its event. Returns the events removed.
    private func trimEvents(of session: HistorySession, keptSince: Date) async throws -> Int {
        var (through, total) = (session.eventsTrimmedThrough, 0)
        while true {
            try Task.checkCancellation()
            let from = through
            let trimmed: (through: Int64, removal: HistoryRemoval)? = try await paced { repositories in
                let history = repositories.history
                // A deleted session's pending deliveries go too: its webhook went with it.
                let target = EventLogTrim.through(
                    try await history.oldestEvents(sessionID: session.id, after: from, limit: pace.batch),
                    trimmedThrough: from,
                    keptSince: keptSince,
                    firstPendingDelivery: session.deleted ? nil : try await history.firstPendingDelivery(sessionID: session.id)
                )
                guard target > from else { return nil }
                let removal = try await history.trimEvents(
                    sessionID: session.id,
                    tenantID: session.tenantID,
                    after: from,
                    through: target,
                    deleted: session.deleted
                )
                return (target, removal)
            }
            guard let trimmed else { return total }
            total += trimmed.removal.events
            metrics.historyRemoved("events", trimmed.removal.events)
            metrics.historyRemoved("deliveries", trimmed.removal.deliveries)
            metrics.historyRemoved("delivery_attempts", trimmed.removal.attempts)
            through = trimmed.through
            if trimmed.through - from < pace.batch { return total }
        }
    }
}
