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
/// system after each pass. Whatever is removed is counted (`transferd_history_rows_removed_total`); an instance
/// stopped partway leaves nothing half-removed, and any instance's next pass goes on.
package struct HistoryPruner: Service {
    /// Rows removed in one transaction at most.
    static let batch = 500
    /// Sessions read at once.
    static let sessionsPerRead = 500
    /// Pages given back to the file system after a pass at most (4 KiB each: 256 MiB).
    static let pagesPerPass = 65_536

    let store: any Store
    let kept: KeptContent
    let retention: HistoryRetention
    let interval: Duration
    let loop: WakeUpLoop
    let metrics: ServiceMetrics

    package init(
        store: any Store,
        files: FileStore,
        objects: ObjectStores,
        retention: HistoryRetention,
        interval: Duration,
        loop: WakeUpLoop,
        metrics: ServiceMetrics
    ) {
        (self.store, self.retention) = (store, retention)
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

    /// One pass over every session.
    package func prune(at now: Date) async throws {
        var cursor: Int64 = 0
        while true {
            let after = cursor
            let sessions = try await store.read { try await $0.history.sessions(after: after, limit: Self.sessionsPerRead) }
            for session in sessions { try await prune(session, at: now) }
            guard let last = sessions.last, sessions.count == Self.sessionsPerRead else { break }
            cursor = last.id
        }
        try await store.write { try await $0.history.reclaimSpace(pages: Self.pagesPerPass) }
    }

    private func prune(_ session: HistorySession, at now: Date) async throws {
        if session.deleted { return try await remove(session) }
        let keptSince = retention.keptSince(session, at: now)
        if let oldest = session.oldestFinishedTask, oldest < keptSince {
            try await inBatches("tasks") { repositories in
                try await repositories.history.removeFinishedTasks(sessionID: session.id, finishedBefore: keptSince, limit: Self.batch)
            }
        }
        if let oldest = session.oldestEndedBackgroundTask, oldest < keptSince {
            try await inBatches("background_tasks") { repositories in
                try await repositories.history.removeEndedBackgroundTasks(sessionID: session.id, endedBefore: keptSince, limit: Self.batch)
            }
        }
        if let oldest = session.oldestEvent, oldest < keptSince { try await trimEvents(of: session, keptSince: keptSince) }
        if let invalidated = session.invalidatedAt, invalidated < keptSince { try await removeRow(of: session) }
    }

    /// Removes all a deleted session holds, then its row; waits for a later pass while transfers it cancelled stop.
    private func remove(_ session: HistorySession) async throws {
        guard session.unfinishedTasks == 0 else { return }
        while true {
            try Task.checkCancellation()
            let tasks = try await store.read { try await $0.history.completedTasks(sessionID: session.id, limit: Self.batch) }
            for task in tasks {
                await kept.removeContent(of: task)
                await kept.removeReply(of: task)
            }
            let ids = tasks.map(\.rowID)
            metrics.historyRemoved("tasks", try await store.write { try await $0.history.removeTasks(sessionID: session.id, ids: ids) })
            if tasks.count < Self.batch { break }
        }
        try await inBatches("background_tasks") { repositories in
            try await repositories.history.removeEndedBackgroundTasks(sessionID: session.id, endedBefore: .distantFuture, limit: Self.batch)
        }
        try await trimEvents(of: session, keptSince: .distantFuture)
        try await removeRow(of: session)
    }

    /// Removes the session's row once nothing is left under it.
    private func removeRow(of session: HistorySession) async throws {
        let removed = try await store.write { try await $0.history.removeSession(id: session.id) }
        metrics.historyRemoved("sessions", removed ? 1 : 0)
    }

    /// Runs `removal` in transactions of its own until it removes less than a batch.
    private func inBatches(_ table: String, _ removal: @escaping @Sendable (any Repositories) async throws -> Int) async throws {
        while true {
            try Task.checkCancellation()
            let removed = try await store.write(removal)
            metrics.historyRemoved(table, removed)
            if removed < Self.batch { return }
        }
    }

    /// Trims the session's event log batch by batch; each batch reads where it may trim to in the transaction that
    /// trims, so that a delivery pending since the pass began keeps its event.
    private func trimEvents(of session: HistorySession, keptSince: Date) async throws {
        var through = session.eventsTrimmedThrough
        while true {
            try Task.checkCancellation()
            let from = through
            let trimmed: (through: Int64, removal: HistoryRemoval)? = try await store.write { repositories in
                let history = repositories.history
                // A deleted session's pending deliveries go too: its webhook went with it.
                let target = EventLogTrim.through(
                    try await history.oldestEvents(sessionID: session.id, after: from, limit: Self.batch),
                    trimmedThrough: from,
                    keptSince: keptSince,
                    firstPendingDelivery: session.deleted ? nil : try await history.firstPendingDelivery(sessionID: session.id)
                )
                guard target > from else { return nil }
                let removal = try await history.trimEvents(
                    sessionID: session.id,
                    tenantID: session.tenantID,
                    through: target,
                    deleted: session.deleted
                )
                return (target, removal)
            }
            guard let trimmed else { return }
            metrics.historyRemoved("events", trimmed.removal.events)
            metrics.historyRemoved("deliveries", trimmed.removal.deliveries)
            metrics.historyRemoved("delivery_attempts", trimmed.removal.attempts)
            through = trimmed.through
            if trimmed.through - from < Self.batch { return }
        }
    }
}
