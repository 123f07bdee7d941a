import Foundation
import GRDB
import TransferdDomain

/// Transfer tasks and their queue.
struct SQLTaskRepository: TaskRepository {
    let db: any SQLConnection
    let vault: CredentialVault
    /// On PostgreSQL, the commit position and notification a creation's statement takes.
    var numbering: CommitNumbering? = nil
    /// The signals the transaction has announced so far, which a creation's statement notifies.
    var commitActions = CommitActions()

    private func tasks(_ sql: String, _ arguments: SQLArguments = []) async throws -> [TransferTask] {
        try await db.fetchAll(sql, arguments, { try TransferTask(row: $0, vault: vault) })
    }

    func find(id: Int64) async throws -> TransferTask? {
        try await db.fetchOne("SELECT * FROM tasks WHERE id = ?\(db.rowLock)", [id], { try TransferTask(row: $0, vault: vault) })
    }

    func find(sessionID: Int64, taskIdentifier: Int64) async throws -> TransferTask? {
        try await db.fetchOne(
            "SELECT * FROM tasks WHERE session_id = ? AND task_identifier = ?\(db.rowLock)",
            [sessionID, taskIdentifier],
            { try TransferTask(row: $0, vault: vault) }
        )
    }

    func insert(_ task: TransferTask) async throws -> TransferTask {
        try await insert([task])[0]
    }

    /// Tasks whose row ids were reserved (PostgreSQL) are held for the next statement (the creation's events).
    func insert(_ tasks: [TransferTask]) async throws -> [TransferTask] {
        let reserved = tasks.compactMap(\.id)
        let ids: [Int64]
        if db.dialect == .postgres, reserved.count == tasks.count {
            try await RowStatements.hold(into: TransferTask.table, rows: try tasks.map { ($0.rowID, try $0.insertedColumns(vault)) }, db)
            ids = reserved
        } else {
            ids = try await RowStatements.insert(into: TransferTask.table, rows: tasks.map { try $0.insertedColumns(vault) }, db)
        }
        return zip(tasks, ids).map(Self.asStored)
    }

    /// A new task as it reads back once inserted as row `id`: its dates to the millisecond. (Its JSON columns hold no
    /// dates when it is created.)
    static func asStored(_ task: TransferTask, id: Int64) -> TransferTask {
        var task = task
        task.id = id
        task.createdAt = StoredDate.stored(task.createdAt) ?? task.createdAt
        task.earliestBeginDate = StoredDate.stored(task.earliestBeginDate)
        task.nextAttemptAt = StoredDate.stored(task.nextAttemptAt)
        task.startedAt = StoredDate.stored(task.startedAt)
        task.completedAt = StoredDate.stored(task.completedAt)
        return task
    }

    func create(_ creation: TaskCreation) async throws -> TaskCreation.Written? {
        try await SQLTaskCreation(db: db, vault: vault, numbering: numbering, commitActions: commitActions).create(creation)
    }

    func endingBases(ids: [Int64], owner: String) async throws -> [TaskEnding.Basis] {
        try await SQLTaskEnding(db: db, vault: vault, numbering: numbering, commitActions: commitActions).bases(ids: ids, owner: owner)
    }

    func end(_ ending: TaskEnding) async throws -> [Event]? {
        try await SQLTaskEnding(db: db, vault: vault, numbering: numbering, commitActions: commitActions).end(ending)
    }

    func update(_ task: TransferTask) async throws {
        try await RowStatements.update(TransferTask.table, id: task.rowID, try task.storedColumns(), db)
    }

    func update(_ tasks: [TransferTask]) async throws {
        try await RowStatements.update(TransferTask.table, rows: tasks.map { ($0.rowID, try $0.storedColumns()) }, db)
    }

    func holdUpdates(_ tasks: [TransferTask]) async throws {
        try await RowStatements.holdUpdates(TransferTask.table, rows: tasks.map { ($0.rowID, try $0.storedColumns()) }, db)
    }

    func list(sessionID: Int64, after cursor: Int64, state: TaskState?, limit: Int) async throws -> [TransferTask] {
        guard let state else {
            return try await tasks(
                "SELECT * FROM tasks WHERE session_id = ? AND task_identifier > ? ORDER BY task_identifier LIMIT ?",
                [sessionID, cursor, limit]
            )
        }
        return try await tasks(
            "SELECT * FROM tasks WHERE session_id = ? AND task_identifier > ? AND state = ? ORDER BY task_identifier LIMIT ?",
            [sessionID, cursor, state, limit]
        )
    }

    func inState(_ state: TaskState) async throws -> [TransferTask] {
        try await tasks("SELECT * FROM tasks WHERE state = ?\(db.rowLock)", [state])
    }

    func unfinished(sessionID: Int64) async throws -> [TransferTask] {
        try await tasks("SELECT * FROM tasks WHERE session_id = ? AND state <> ?\(db.rowLock)", [sessionID, TaskState.completed])
    }

    // The counts read the per-session counters that the tasks' triggers keep (`0010_queue_and_counts.sql`).

    func workload(sessionID: Int64) async throws -> SessionWorkload? {
        try await db.fetchOne(
            """
            SELECT state, cancel_on_invalidate, tasks_running + tasks_canceling, tasks_suspended + tasks_running + tasks_canceling
            FROM sessions WHERE id = ?
            """,
            [sessionID]
        ) { row in
            SessionWorkload(state: try RowCoding.enumeration(row, "state"), cancelsTasks: row[1], busy: row[2], unfinished: row[3])
        }
    }

    func transfers(ofBackgroundTask publicID: String) async throws -> [TransferTask] {
        try await tasks("SELECT * FROM tasks WHERE background_task = ? ORDER BY task_identifier\(db.rowLock)", [publicID])
    }

    func unfinishedUploads(sending source: UploadSourceReference) async throws -> [Int64] {
        let (column, id) =
            switch source {
            case .stagedFile(let id): ("source_file_id", id)
            case .task(let id): ("source_task_id", id)
            }
        return try await db.values(
            "SELECT task_identifier FROM tasks WHERE \(column) = ? AND state <> ? ORDER BY task_identifier",
            [id, TaskState.completed]
        )
    }

    func countWaiting() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        try await db.forEachRow(
            """
            SELECT COALESCE(waiting_reason, 'queued') AS reason, COUNT(*) FROM tasks
            WHERE state = ? AND lease_owner IS NULL GROUP BY reason
            """,
            [TaskState.running]
        ) { row in counts[row[0]] = row[1] }
        return counts
    }

    func recordProgress(
        id: Int64,
        owner: String,
        received: Int64,
        expected: Int64,
        partialBytes: Int64,
        objectUpload: ObjectUploadProgress?
    ) async throws -> Bool {
        try await db.execute(
            """
            UPDATE tasks SET count_of_bytes_received = ?, count_of_bytes_expected = ?, partial_bytes = ?,
              object_upload = COALESCE(?, object_upload),
              reserved_bytes = CASE WHEN partial_bytes + reserved_bytes > ? THEN partial_bytes + reserved_bytes - ? ELSE 0 END
            WHERE id = ? AND state IN (?, ?) AND lease_owner = ?
            """,
            [
                received, expected, partialBytes, try RowCoding.json(objectUpload), partialBytes, partialBytes, id,
                TaskState.running, TaskState.canceling, owner,
            ]
        ) > 0
    }

    func reservation(id: Int64) async throws -> Int64 {
        try await db.value("SELECT partial_bytes + reserved_bytes FROM tasks WHERE id = ?", [id]) ?? 0
    }

    func reserve(id: Int64, owner: String, through: Int64) async throws -> Bool {
        try await db.execute(
            """
            UPDATE tasks SET reserved_bytes = CASE WHEN ? - partial_bytes > reserved_bytes THEN ? - partial_bytes ELSE reserved_bytes END
            WHERE id = ? AND state = ? AND lease_owner = ?
            """,
            [through, through, id, TaskState.running, owner]
        ) > 0
    }

    func recordResponses(owner: String, _ responses: [(id: Int64, received: ReceivedResponse)]) async throws -> [Int64: Int64] {
        var identifiers: [Int64: Int64] = [:]
        // Rows of one shape go together: a response that starts a body writes its offset and validator too.
        for shape in [true, false] {
            let rows = try responses.filter { ($0.received.start != nil) == shape }.map { ($0.id, try Self.columns(of: $0.received)) }
            guard let first = rows.first?.1 else { continue }
            let guarded = [TaskState.running, owner] as SQLArguments
            if db.dialect == .postgres, rows.count > 1 {
                try await db.forEachRow(
                    """
                    UPDATE tasks AS t SET \(first.map { "\($0.key) = v.\($0.key)" }.joined(separator: ", "))
                    FROM \(JSONRows.source(of: "tasks"))
                    WHERE t.id = v.id AND t.state = ? AND t.lease_owner = ? RETURNING t.id, t.task_identifier
                    """,
                    [try JSONRows.text(rows.map { ["id": $0.0] + $0.1 })] + guarded
                ) { identifiers[$0[0]] = $0[1] }
                continue
            }
            for (id, columns) in rows {
                identifiers[id] = try await db.value(
                    """
                    UPDATE tasks SET \(columns.map { "\($0.key) = ?" }.joined(separator: ", "))
                    WHERE id = ? AND state = ? AND lease_owner = ? RETURNING task_identifier
                    """,
                    columns.map(\.value) + [id] + guarded
                )
            }
        }
        return identifiers
    }

    /// The columns a response writes.
    private static func columns(of received: ReceivedResponse) throws -> StoredColumns {
        let columns: StoredColumns = ["current_url": received.currentUrl, "response": try RowCoding.json(received.response)]
        guard let start = received.start else { return columns }
        let (validator, reason): (ResumeValidator?, String?) =
            switch start.resumability {
            case .success(let validator): (validator, nil)
            case .failure(let reason): (nil, reason.rawValue)
            }
        return columns
            + [
                "count_of_bytes_received": start.offset, "count_of_bytes_expected": start.expectedBytes, "partial_bytes": start.offset,
                "resume_validator": try RowCoding.json(validator), "not_resumable_reason": reason,
            ]
    }

    func recordUploadProgress(id: Int64, owner: String, sent: Int64, expected: Int64) async throws -> Bool {
        try await db.execute(
            """
            UPDATE tasks SET count_of_bytes_sent = ?, count_of_bytes_expected_to_send = ?
            WHERE id = ? AND state = ? AND lease_owner = ?
            """,
            [sent, expected, id, TaskState.running, owner]
        ) > 0
    }

    func recordObjectUpload(id: Int64, owner: String, objectUpload: ObjectUploadProgress) async throws -> Bool {
        try await db.execute(
            "UPDATE tasks SET object_upload = ? WHERE id = ? AND state IN (?, ?) AND lease_owner = ?",
            [try RowCoding.json(objectUpload), id, TaskState.running, TaskState.canceling, owner]
        ) > 0
    }

    func recordReply(id: Int64, reply: StoredReply) async throws {
        try await db.execute("UPDATE tasks SET reply = ?, reserved_bytes = 0 WHERE id = ?", [try RowCoding.json(reply), id])
    }

    func forgetContent(id: Int64) async throws {
        try await db.execute("UPDATE tasks SET file = NULL WHERE id = ?", [id])
    }

    func releaseResumeData(sessionID: Int64) async throws -> [Int64] {
        try await db.values(
            "UPDATE tasks SET partial_bytes = 0 WHERE session_id = ? AND state = ? AND partial_bytes > 0 RETURNING id",
            [sessionID, TaskState.completed]
        )
    }

    func expiredContent(at now: Date) async throws -> [TransferTask] {
        // The session's retention period, in seconds.
        let expired =
            switch db.dialect {
            case .sqlite:
                "julianday(t.completed_at) + s.retention_period / 86400.0 < julianday(?)"
            case .postgres:
                "CAST(t.completed_at AS timestamp) + make_interval(secs => s.retention_period) < CAST(? AS timestamp)"
            }
        return try await tasks(
            """
            SELECT t.* FROM tasks t JOIN sessions s ON s.id = t.session_id
            WHERE t.state = ? AND ((t.file IS NOT NULL AND (t.destination IS NULL OR t.destination LIKE ? ESCAPE '!'))
                OR t.reply IS NOT NULL) AND \(expired)
              AND NOT EXISTS (SELECT 1 FROM tasks u WHERE u.source_task_id = t.id AND u.state <> ?)\(db.rowLock(of: "t"))
            """,
            [TaskState.completed, Self.inContentStore, StoredDate.text(now), TaskState.completed]
        )
    }

    /// A `destination` in the content store: its JSON names the store as a member, which no key can spell (quotes
    /// in a key are escaped).
    static let inContentStore = "%\"storage\":\"!\(ObjectLocation.contentStore)\"%"

    func abandonedObjectUploads(after taskID: Int64, limit: Int) async throws -> [AbandonedObjectUpload] {
        try await db.fetchAll(
            """
            SELECT t.id, s.tenant_id, t.destination, t.object_upload FROM tasks t JOIN sessions s ON s.id = t.session_id
            WHERE t.object_upload IS NOT NULL AND t.state = ? AND t.id > ? ORDER BY t.id LIMIT ?
            """,
            [TaskState.completed, taskID, limit]
        ) { row in
            AbandonedObjectUpload(
                taskID: row["id"],
                tenantID: row["tenant_id"],
                location: try RowCoding.decode(ObjectLocation.self, json: row["destination"]),
                progress: try RowCoding.decode(ObjectUploadProgress.self, json: row["object_upload"])
            )
        }
    }

    func forgetObjectUpload(id: Int64) async throws {
        _ = try await db.execute("UPDATE tasks SET object_upload = NULL WHERE id = ?", [id])
    }

    /// Each part an index seek but the transfers under way (the leased tasks, few, walked by queue on PostgreSQL:
    /// `underwayWalk`), which travel as one JSON array;
    /// whether a lease expired is the earliest lease's expiry (an `EXISTS` of the expired ones was planned as a scan
    /// of the table while its statistics counted many leases, and found none at its end).
    func overview(dueAfter now: Date, leasesAt leaseNow: Date, owner: String, ending: [Int64]) async throws -> QueueOverview {
        let (sql, arguments) = overviewStatement(dueAfter: now, leasesAt: leaseNow, owner: owner, ending: ending)
        return try await db.fetchOne(sql, arguments, Self.overview(from:)) ?? QueueOverview()
    }

    /// The overview's statement, its columns named, and its arguments.
    private func overviewStatement(
        dueAfter now: Date,
        leasesAt leaseNow: Date,
        owner: String,
        ending: [Int64],
        takingTurn: Bool = false
    ) -> (String, SQLArguments) {
        // The ending tasks travel as one JSON array too: one statement text however many there are.
        let underway =
            switch db.dialect {
            case .sqlite:
                """
                SELECT json_group_array(json_array(session_id, origin, n)) FROM (
                    SELECT session_id, origin, COUNT(*) AS n FROM tasks
                    WHERE lease_owner IS NOT NULL AND lease_expires_at > ? AND id NOT IN (SELECT value FROM json_each(?))
                    GROUP BY session_id, origin) AS underway
                """
            case .postgres: Self.underwayWalk
            }
        let first = "FROM tasks WHERE state = ? ORDER BY session_id, origin LIMIT 1"
        return (
            """
            SELECT (SELECT MIN(next_attempt_at) FROM tasks WHERE state = ? AND next_attempt_at > ?) AS next_attempt,
                   (SELECT MIN(lease_expires_at) FROM tasks WHERE lease_owner IS NOT NULL AND lease_owner <> ?) AS next_foreign_expiry,
                   COALESCE((SELECT MIN(lease_expires_at) FROM tasks WHERE lease_owner IS NOT NULL) <= ?, FALSE) AS leases_expired,
                   (\(underway)) AS underway,
                   (SELECT session_id \(first)) AS first_session_id, (SELECT origin \(first)) AS first_origin,
                   EXISTS (SELECT 1 FROM background_tasks WHERE state = ?) AS background_active,
                   \(Self.anyClaimable) AS any_claimable
                   \(takingTurn ? ", " + ClaimTurn.taking : "")
            """,
            [TaskState.running, StoredDate.text(now), owner, StoredDate.text(leaseNow), StoredDate.text(leaseNow)]
                + ["[" + ending.map(String.init).joined(separator: ",") + "]", TaskState.running, TaskState.running]
                + [BackgroundTask.State.active, StoredDate.text(now)]
        )
    }

    /// Whether any queued task is due at the time `?` and leased to no one: two seeks of the partial index
    /// `tasks_claimable` (the state is written out, so that the planner matches it).
    static let anyClaimable = """
        (EXISTS (SELECT 1 FROM tasks WHERE state = '\(TaskState.running.rawValue)' AND lease_owner IS NULL AND next_attempt_at IS NULL)
         OR EXISTS (SELECT 1 FROM tasks WHERE state = '\(TaskState.running.rawValue)' AND lease_owner IS NULL AND next_attempt_at <= ?))
        """

    /// The overview a row of its statement holds.
    private static func overview(from row: StoredRow) throws -> QueueOverview {
        let counts = try JSONDecoder().decode([UnderwayCount].self, from: Data((row[3] as String? ?? "[]").utf8))
        let (sessionID, origin) = (row[4] as Int64?, row[5] as String?)
        return QueueOverview(
            nextAttempt: row[0],
            nextForeignLeaseExpiry: row[1],
            leasesExpired: row[2],
            underway: Dictionary(counts.map { ($0.queue, $0.count) }, uniquingKeysWith: +),
            firstQueue: sessionID.flatMap { sessionID in origin.map { HostQueue(sessionID: sessionID, origin: $0) } },
            anyBackgroundTaskActive: row[6],
            anyClaimable: row[7]
        )
    }

    func claimable(
        dueAfter now: Date,
        leasesAt leaseNow: Date,
        owner: String,
        ending: [Int64],
        depth: Int
    ) async throws -> (QueueOverview, [QueuedTask]) {
        guard db.dialect == .postgres else {
            let overview = try await overview(dueAfter: now, leasesAt: leaseNow, owner: owner, ending: ending)
            return (overview, overview.anyClaimable ? try await queueHeads(from: overview, dueAt: now, depth: depth, firstPage: nil) : [])
        }
        // The first queue's page comes with the overview: the statement a claim most often needs after it. A claim's
        // first read takes its turn, and is made again if a claim leased between its snapshot and the turn.
        let turn = db.claimTurn.flatMap { $0.isWaiting ? $0 : nil }
        let (sql, arguments) = overviewStatement(dueAfter: now, leasesAt: leaseNow, owner: owner, ending: ending, takingTurn: turn != nil)
        var overview: QueueOverview?
        var leasedMeanwhile = false
        var page = QueuePage()
        try await db.forEachRow(
            """
            SELECT o.*, NULL AS head_columns, h.* FROM (\(sql)) AS o LEFT JOIN LATERAL (
                SELECT \(pageColumns(after: "o.first_session_id", "o.first_origin"))
                \(pageSource(of: "o.first_session_id", "o.first_origin"))
            ) AS h ON o.any_claimable
            """,
            arguments + [TaskState.running, TaskState.running, TaskState.running, StoredDate.text(now), depth]
        ) { row in
            let parts = row.parts(Self.claimOverviewLayout)
            if overview == nil {
                overview = try Self.overview(from: parts[0])
                if turn != nil { leasedMeanwhile = (parts[0]["leases_at_turn"] as Int64) != parts[0]["leases_seen"] }
            }
            guard (parts[1][TaskColumn.id] as Int64?) != nil else { return }
            try page.add(parts[1], vault: vault)
        }
        turn?.taken()
        if leasedMeanwhile { return try await claimable(dueAfter: now, leasesAt: leaseNow, owner: owner, ending: ending, depth: depth) }
        guard let overview, overview.anyClaimable else { return (overview ?? QueueOverview(), []) }
        return (overview, try await queueHeads(from: overview, dueAt: now, depth: depth, firstPage: page))
    }

    /// The overview's part and its first page's, after `head_columns`. Whether the overview takes a turn changes its
    /// columns; the layout cuts a result of other names again.
    private static let claimOverviewLayout = JoinLayout(after: ["head_columns"])

    /// The transfers under way per queue (PostgreSQL), as a JSON array of `[session, origin, count]`: the queues
    /// holding a leased task, each found from the one before by a seek of `tasks_underway`, then each queue's live
    /// leases counted in it. Grouped over the table instead, the count was a scan of every task whenever the planner
    /// had no statistics yet (a new database: 0.9 ms a claim against 0.1 ms), for it took most tasks to be leased.
    private static let underwayWalk = """
        SELECT CAST(COALESCE(json_agg(json_build_array(queues.session_id, queues.origin, counted.n)), '[]') AS text) FROM (
            WITH RECURSIVE queues (session_id, origin) AS (
                (SELECT session_id, origin FROM tasks WHERE lease_owner IS NOT NULL ORDER BY session_id, origin LIMIT 1)
                UNION ALL
                SELECT next.session_id, next.origin FROM queues CROSS JOIN LATERAL (
                    SELECT session_id, origin FROM tasks
                    WHERE lease_owner IS NOT NULL AND (session_id, origin) > (queues.session_id, queues.origin)
                    ORDER BY session_id, origin LIMIT 1
                ) AS next
            )
            SELECT * FROM queues
        ) AS queues CROSS JOIN LATERAL (
            SELECT COUNT(*) AS n FROM tasks
            WHERE lease_owner IS NOT NULL AND session_id = queues.session_id AND origin = queues.origin AND lease_expires_at > ?
              AND id NOT IN (SELECT CAST(value AS bigint) FROM jsonb_array_elements_text(CAST(? AS jsonb)))
        ) AS counted
        WHERE counted.n > 0
        """

    func anyWaiting(for reason: TransferTask.WaitingReason, at now: Date) async throws -> Bool {
        try await db.fetchOne(
            "SELECT 1 FROM tasks WHERE \(Self.waiting) LIMIT 1",
            [TaskState.running, StoredDate.text(now), reason.rawValue]
        ) { _ in true } ?? false
    }

    func wake(waitingFor reason: TransferTask.WaitingReason, at now: Date) async throws -> Int {
        let now = StoredDate.text(now)
        let arguments: SQLArguments = [now, TaskState.running, now, reason.rawValue]
        return try await db.execute("UPDATE tasks SET next_attempt_at = ? WHERE \(Self.waiting)", arguments)
    }

    /// The queued tasks that wait, past a time, for a reason.
    private static let waiting = "state = ? AND next_attempt_at > ? AND waiting_reason = ?"

    /// The queue heads from the overview's first queue on; `firstPage`, when read with the overview, is the first
    /// queue's (at most `depth` tasks, read before the active background tasks were known: enough, for a boosted task
    /// among them only takes the place it holds already).
    private func queueHeads(from overview: QueueOverview, dueAt now: Date, depth: Int, firstPage: QueuePage?) async throws -> [QueuedTask] {
        let (boosted, boostedRevisions) = overview.anyBackgroundTaskActive ? try await boostedTasks(dueAt: now) : ([], [:])
        let boostedIDs = Set(boosted.map(\.rowID))
        var heads: [QueuedTask] = []
        var queue = overview.firstQueue.map { ($0.sessionID, $0.origin) }
        var prefetched = firstPage
        while let (sessionID, origin) = queue {
            let first = boosted.filter { $0.sessionId == sessionID && $0.origin == origin }
                .sorted { ($0.priority, -$0.rowID) > ($1.priority, -$1.rowID) }
            let page: QueuePage
            if let read = prefetched {
                page = read
                prefetched = nil
            } else {
                page = try await self.page(of: (sessionID, origin), dueAt: now, limit: depth + first.count)
            }
            let ranked = (first + page.tasks.filter { !boostedIDs.contains($0.rowID) }).prefix(depth)
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
    private func pageColumns(after session: String, _ origin: String) -> String {
        """
        t.*, \(revisionColumn), s.configuration AS session_configuration, s.tenant_id AS session_tenant,
               (SELECT session_id FROM tasks WHERE state = ? AND (session_id, origin) > (\(session), \(origin))
                ORDER BY session_id, origin LIMIT 1) AS next_session_id,
               (SELECT origin FROM tasks WHERE state = ? AND (session_id, origin) > (\(session), \(origin))
                ORDER BY session_id, origin LIMIT 1) AS next_origin
        """
    }

    /// Where a queue page's rows come from: the queue of `session` and `origin` (two SQL expressions), its queued
    /// tasks due at a bound time, leased to no one, at most a bound number, locked unless another claim holds them.
    private func pageSource(of session: String, _ origin: String) -> String {
        """
        FROM tasks t JOIN sessions s ON s.id = t.session_id
        WHERE t.state = ? AND t.session_id = \(session) AND t.origin = \(origin) AND t.lease_owner IS NULL
          AND (t.next_attempt_at IS NULL OR t.next_attempt_at <= ?)
        ORDER BY t.priority DESC, t.id LIMIT ?\(skipLocked(of: "t"))
        """
    }

    /// One queue's tasks as a claim reads them, with the queue's session and the queue that follows.
    private struct QueuePage {
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
            SELECT t.*, \(revisionColumn) FROM background_tasks b CROSS JOIN tasks t
            WHERE b.state = ? AND t.background_task IS NOT NULL AND t.background_task = b.public_id AND t.state = ?
              AND t.lease_owner IS NULL AND (t.next_attempt_at IS NULL OR t.next_attempt_at <= ?)\(skipLocked(of: "t"))
            """,
            [BackgroundTask.State.active, TaskState.running, StoredDate.text(now)]
        ) { row in
            let task = try TransferTask(row: row, vault: vault)
            tasks.append(task)
            revisions[task.rowID] = row["revision"]
        }
        return (tasks, revisions)
    }

    /// A claim's read of a task's revision, `revision` (none on SQLite).
    private var revisionColumn: String {
        switch db.dialect {
        case .sqlite: "NULL AS revision"
        case .postgres: "CAST(t.xmin AS text) AS revision"
        }
    }

    /// On PostgreSQL, locks the rows a claim reads and passes over those another transaction has locked.
    private func skipLocked(of table: String? = nil) -> String {
        switch db.dialect {
        case .sqlite: ""
        case .postgres: " FOR UPDATE\(table.map { " OF " + $0 } ?? "") SKIP LOCKED"
        }
    }

    @discardableResult
    func lease(_ tasks: [RowRevision], _ lease: TaskLease, startedAt: Date) async throws -> [RowRevision] {
        guard !tasks.isEmpty else { return [] }
        let (expiry, started) = (StoredDate.text(lease.expiresAt), StoredDate.text(startedAt))
        guard let turn = db.claimTurn else {
            try await db.execute(
                """
                UPDATE tasks SET lease_owner = ?, lease_expires_at = ?, started_at = COALESCE(started_at, ?)
                WHERE id IN (\(Placeholders.list(tasks.count)))
                """,
                [lease.owner, expiry, started] + tasks.map(\.id)
            )
            return tasks.map { RowRevision(id: $0.id, revision: nil) }
        }
        if turn.isWaiting {
            try await db.forEachRow(ClaimTurn.take, []) { _ in }
            turn.taken()
        }
        var leased: [RowRevision] = []
        let (ids, revisions) = ("{" + tasks.map { String($0.id) }.joined(separator: ",") + "}", ClaimTurn.array(tasks.map(\.revision)))
        try await db.forEachRow(ClaimTurn.lease, [ids, revisions, lease.owner, expiry, started]) { row in
            leased = (row[0] as String).split(separator: ",").compactMap { pair in
                let parts = pair.split(separator: ":")
                return parts.count == 2 ? Int64(parts[0]).map { RowRevision(id: $0, revision: String(parts[1])) } : nil
            }
        }
        turn.given()
        return leased
    }

    func releaseLeases(ids: [Int64], owner: String) async throws -> (tasks: [TransferTask], workloads: [Int64: SessionWorkload]) {
        guard !ids.isEmpty else { return ([], [:]) }
        let release = """
            UPDATE tasks SET lease_owner = NULL, lease_expires_at = NULL WHERE id IN (\(Placeholders.list(ids.count))) AND lease_owner = ?
            RETURNING *
            """
        guard db.dialect == .postgres else {
            let released = try await tasks(release, ids + [owner])
            var workloads: [Int64: SessionWorkload] = [:]
            for session in Set(released.map(\.sessionId)) { workloads[session] = try await workload(sessionID: session) }
            return (released, workloads)
        }
        // The sessions' rows are locked after the tasks', as every write of a task takes them.
        var (released, workloads) = ([TransferTask](), [Int64: SessionWorkload]())
        try await db.forEachRow(
            """
            WITH released AS (\(release))
            SELECT released.*, w.workload_session, w.workload_state, w.workload_cancels, w.workload_busy, w.workload_unfinished
            FROM released JOIN (
                SELECT id AS workload_session, state AS workload_state, cancel_on_invalidate AS workload_cancels,
                       tasks_running + tasks_canceling AS workload_busy,
                       tasks_suspended + tasks_running + tasks_canceling AS workload_unfinished
                FROM sessions WHERE id IN (SELECT session_id FROM released) ORDER BY id FOR NO KEY UPDATE
            ) AS w ON w.workload_session = released.session_id
            """,
            ids + [owner]
        ) { row in
            released.append(try TransferTask(row: row, vault: vault))
            workloads[row["workload_session"]] = SessionWorkload(
                state: try RowCoding.enumeration(row, "workload_state"),
                cancelsTasks: row["workload_cancels"],
                busy: row["workload_busy"],
                unfinished: row["workload_unfinished"]
            )
        }
        return (released, workloads)
    }

    func renewLeases(ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<TaskState>] {
        try await LeaseRenewals.renew(.tasks, ids: ids, owner: owner, until: expiresAt, reading: "state", db) { row in
            try RowCoding.enumeration(row[1] as String, "state")
        }
    }

    func releaseLease(id: Int64) async throws {
        try await db.execute("UPDATE tasks SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ?", [id])
    }

    func expireLeases(ownedBy owner: String?) async throws {
        let expired = StoredDate.text(Date(timeIntervalSince1970: 0))
        if let owner {
            try await db.execute("UPDATE tasks SET lease_expires_at = ? WHERE lease_owner = ?", [expired, owner])
        } else {
            try await db.execute("UPDATE tasks SET lease_expires_at = ? WHERE lease_owner IS NOT NULL", [expired])
        }
    }

    func expiredLeases(at now: Date) async throws -> [TransferTask] {
        try await tasks("SELECT * FROM tasks WHERE lease_owner IS NOT NULL AND lease_expires_at <= ?\(db.rowLock)", [StoredDate.text(now)])
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

/// One queue's count of transfers under way, as the overview's JSON array holds it: `[session_id, origin, count]`.
private struct UnderwayCount: Decodable {
    let queue: HostQueue
    let count: Int

    init(from decoder: any Decoder) throws {
        var row = try decoder.unkeyedContainer()
        queue = HostQueue(sessionID: try row.decode(Int64.self), origin: try row.decode(String.self))
        count = try row.decode(Int.self)
    }
}
