import Foundation
import GRDB
import TransferdDomain

/// What a claim reads: the overview and the queue heads.
extension SQLTaskQueueRepository {
    func claimable(
        dueAfter now: Date,
        leasesAt leaseNow: Date,
        owner: String,
        ending: [Int64],
        depth: Int
    ) async throws -> (QueueOverview, [QueuedTask]) {
        try await db.queue.claimable(self, dueAfter: now, leasesAt: leaseNow, owner: owner, ending: ending, depth: depth)
    }

    /// The queue heads from the overview's first queue on; `firstPage`, when read with the overview, is the first
    /// queue's (at most `depth` tasks, read before the active background tasks were known: enough, for a boosted task
    /// among them only takes the place it holds already).
    func queueHeads(from overview: QueueOverview, dueAt now: Date, depth: Int, firstPage: QueuePage?) async throws -> [QueuedTask] {
        let (boosted, boostedRevisions) = overview.anyBackgroundTaskActive ? try await boostedTasks(dueAt: now) : ([], [:])
        let boostedIDs = Set(boosted.map(\.rowID))
        var heads: [QueuedTask] = []
        var queue = overview.firstQueue.map { ($0.sessionID, $0.origin) }
        var prefetched = firstPage
        while let (sessionID, origin) = queue {
            let ranking = QueueRanking(HostQueue(sessionID: sessionID, origin: origin), boosted: boosted)
            let page: QueuePage
            if let read = prefetched {
                page = read
                prefetched = nil
            } else {
                page = try await self.page(of: (sessionID, origin), dueAt: now, limit: ranking.pageLimit(depth: depth))
            }
            let ranked = ranking.heads(page: page.tasks, depth: depth)
            if !ranked.isEmpty {
                let (configuration, tenant) =
                    if let session = page.session {
                        (try Session.configurations.value(sealed: session.configuration, vault), session.tenant)
                    } else {
                        try await configuration(ofSession: sessionID)
                    }
                for (index, task) in ranked.enumerated() {
                    heads.append(
                        QueuedTask(
                            task: task,
                            configuration: configuration,
                            tenantID: tenant,
                            turn: index + 1,
                            boosted: boostedIDs.contains(task.rowID),
                            revision: boostedRevisions[task.rowID] ?? page.revisions[task.rowID]
                        )
                    )
                }
            }
            queue =
                if let next = page.next {
                    next.sessionID.flatMap { sessionID in next.origin.map { (sessionID, $0) } }
                } else {
                    try await nextQueue(after: (sessionID, origin))
                }
        }
        return heads
    }

    /// One queue's first `limit` queued tasks due at `now` that no instance holds, with its session and the queue
    /// that follows: one statement for all three.
    private func page(of queue: (sessionID: Int64, origin: String), dueAt now: Date, limit: Int) async throws -> QueuePage {
        var page = QueuePage()
        try await db.forEachRow(
            "SELECT \(pageColumns(after: "?", "?")) \(pageSource(of: "?", "?"))",
            [TaskState.running, queue.sessionID, queue.origin, TaskState.running, queue.sessionID, queue.origin]
                + [TaskState.running, queue.sessionID, queue.origin, StoredDate.text(now), limit]
        ) { row in try page.add(row, vault: vault) }
        return page
    }

    /// A queue page's columns: the task's, its session's configuration and tenant, and the queue after `session` and
    /// `origin` (two SQL expressions).
    func pageColumns(after session: String, _ origin: String) -> String {
        """
        t.*, \(db.queue.revisionColumn), s.configuration AS session_configuration, s.tenant_id AS session_tenant,
               (SELECT session_id FROM tasks WHERE state = ? AND (session_id, origin) > (\(session), \(origin))
                ORDER BY session_id, origin LIMIT 1) AS next_session_id,
               (SELECT origin FROM tasks WHERE state = ? AND (session_id, origin) > (\(session), \(origin))
                ORDER BY session_id, origin LIMIT 1) AS next_origin
        """
    }

    /// Where a queue page's rows come from: the queue of `session` and `origin` (two SQL expressions), its queued
    /// tasks due at a bound time, leased to no one, at most a bound number, locked unless another claim holds them.
    func pageSource(of session: String, _ origin: String) -> String {
        """
        FROM tasks t JOIN sessions s ON s.id = t.session_id
        WHERE t.state = ? AND t.session_id = \(session) AND t.origin = \(origin) AND t.lease_owner IS NULL
          AND (t.next_attempt_at IS NULL OR t.next_attempt_at <= ?)
        ORDER BY t.priority DESC, t.id LIMIT ?\(db.queue.skipLocked(of: "t"))
        """
    }

    /// One queue's tasks as a claim reads them, with the queue's session and the queue that follows.
    struct QueuePage {
        var tasks: [TransferTask] = []
        var revisions: [Int64: String] = [:]
        var session: (configuration: String, tenant: Int64)?
        var next: (sessionID: Int64?, origin: String?)?

        mutating func add(_ row: StoredRow, vault: CredentialVault) throws {
            session = (row["session_configuration"], row["session_tenant"])
            next = (row["next_session_id"], row["next_origin"])
            let task = try TransferTask(row: row, vault: vault)
            tasks.append(task)
            revisions[task.rowID] = row["revision"]
        }
    }

    /// The first queue, by session and origin, of running tasks after `previous`: one index seek, so that walking
    /// every queue costs one seek per queue however many tasks wait in each (when a queue has no task to offer, its
    /// heads' statement cannot say which queue follows).
    private func nextQueue(after previous: (sessionID: Int64, origin: String)) async throws -> (Int64, String)? {
        let (sessionID, origin) = previous
        return try await db.fetchOne(
            """
            SELECT session_id, origin FROM tasks WHERE state = ? AND (session_id, origin) > (?, ?)
            ORDER BY session_id, origin LIMIT 1
            """,
            [TaskState.running, sessionID, origin]
        ) { row in (row[0] as Int64, row[1] as String) }
    }

    /// Queued tasks of active background tasks, which run ahead of their session's other tasks: found from the
    /// active background tasks, whatever the depth of the queue.
    private func boostedTasks(dueAt now: Date) async throws -> (tasks: [TransferTask], revisions: [Int64: String]) {
        var (tasks, revisions) = ([TransferTask](), [Int64: String]())
        try await db.forEachRow(
            """
            SELECT t.*, \(db.queue.revisionColumn) FROM background_tasks b CROSS JOIN tasks t
            WHERE b.state = ? AND t.background_task IS NOT NULL AND t.background_task = b.public_id AND t.state = ?
              AND t.lease_owner IS NULL AND (t.next_attempt_at IS NULL OR t.next_attempt_at <= ?)\(db.queue.skipLocked(of: "t"))
            """,
            [BackgroundTask.State.active, TaskState.running, StoredDate.text(now)]
        ) { row in
            let task = try TransferTask(row: row, vault: vault)
            tasks.append(task)
            revisions[task.rowID] = row["revision"]
        }
        return (tasks, revisions)
    }

    /// The session's configuration and tenant.
    private func configuration(ofSession sessionID: Int64) async throws -> (SessionConfiguration, Int64) {
        let row = try await db.fetchOne("SELECT configuration, tenant_id FROM sessions WHERE id = ?", [sessionID]) {
            ($0[0] as String, $0[1] as Int64)
        }
        guard let (sealed, tenant) = row else { throw StoreError.rowNotFound("sessions \(sessionID)") }
        return (try Session.configurations.value(sealed: sealed, vault), tenant)
    }
}
