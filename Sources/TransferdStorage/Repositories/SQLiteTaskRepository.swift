import Foundation
import GRDB
import TransferdDomain

/// Transfer tasks and their queue on SQLite.
struct SQLiteTaskRepository: TaskRepository {
    typealias Columns = TransferTask.Columns

    let db: Database

    func find(id: Int64) throws -> TransferTask? {
        try SQLRequest<TransferTask>(sql: "SELECT * FROM tasks WHERE id = ?", arguments: [id], cached: true).fetchOne(db)
    }

    func find(sessionID: Int64, taskIdentifier: Int64) throws -> TransferTask? {
        try SQLRequest<TransferTask>(
            sql: "SELECT * FROM tasks WHERE session_id = ? AND task_identifier = ?",
            arguments: [sessionID, taskIdentifier],
            cached: true
        ).fetchOne(db)
    }

    func insert(_ task: TransferTask) throws -> TransferTask {
        var task = task
        task.id = try RowStatements.insert(into: TransferTask.databaseTableName, try task.storedColumns(), db)
        // As it reads back: its dates to the millisecond. (Its JSON columns hold no dates when it is created.)
        task.createdAt = StoredDate.stored(task.createdAt) ?? task.createdAt
        task.earliestBeginDate = StoredDate.stored(task.earliestBeginDate)
        task.nextAttemptAt = StoredDate.stored(task.nextAttemptAt)
        task.startedAt = StoredDate.stored(task.startedAt)
        task.completedAt = StoredDate.stored(task.completedAt)
        return task
    }

    func update(_ task: TransferTask) throws {
        try RowStatements.update(TransferTask.databaseTableName, id: task.rowID, try task.storedColumns(), db)
    }

    func list(sessionID: Int64, after cursor: Int64, state: TaskState?, limit: Int) throws -> [TransferTask] {
        var filter = Columns.sessionID == sessionID && Columns.taskIdentifier > cursor
        if let state { filter = filter && Columns.state == state }
        return try TransferTask.filter(filter).order(Columns.taskIdentifier).limit(limit).fetchAll(db)
    }

    func inState(_ state: TaskState) throws -> [TransferTask] {
        try TransferTask.filter(Columns.state == state).fetchAll(db)
    }

    func unfinished(sessionID: Int64) throws -> [TransferTask] {
        try TransferTask.filter(Columns.sessionID == sessionID && Columns.state != TaskState.completed).fetchAll(db)
    }

    // The counts read the per-session counters that the triggers of `0010_queue_and_counts.sql` keep.

    func count(sessionID: Int64) throws -> Int {
        try SQLRequest<Int>(
            literal: "SELECT tasks_suspended + tasks_running + tasks_canceling + tasks_completed FROM sessions WHERE id = \(sessionID)",
            cached: true
        ).fetchOne(db) ?? 0
    }

    func countUnfinished(tenantID: Int64) throws -> Int {
        try SQLRequest<Int>(
            literal:
                "SELECT COALESCE(SUM(tasks_suspended + tasks_running + tasks_canceling), 0) FROM sessions WHERE tenant_id = \(tenantID)",
            cached: true
        ).fetchOne(db) ?? 0
    }

    func workload(sessionID: Int64) throws -> (busy: Int, unfinished: Int) {
        let row = try SQLRequest<Row>(
            literal: """
                SELECT tasks_running + tasks_canceling AS busy, tasks_suspended + tasks_running + tasks_canceling AS unfinished
                FROM sessions WHERE id = \(sessionID)
                """,
            cached: true
        ).fetchOne(db)
        return (row?["busy"] ?? 0, row?["unfinished"] ?? 0)
    }

    func transfers(ofBackgroundTask publicID: String) throws -> [TransferTask] {
        try TransferTask.filter(Columns.backgroundTask == publicID).order(Columns.taskIdentifier).fetchAll(db)
    }

    func unfinishedUploads(sending source: UploadSourceReference) throws -> [Int64] {
        let sends =
            switch source {
            case .stagedFile(let id): Columns.sourceFileID == id
            case .task(let id): Columns.sourceTaskID == id
            }
        return try TransferTask.select(Columns.taskIdentifier, as: Int64.self)
            .filter(sends && Columns.state != TaskState.completed)
            .order(Columns.taskIdentifier)
            .fetchAll(db)
    }

    func markStarted(id: Int64, at: Date) throws {
        try db.cachedStatement(
            literal:
                "UPDATE tasks SET started_at = COALESCE(started_at, \(StoredDate.text(at))) WHERE id = \(id) AND state = \(TaskState.running)"
        ).execute()
    }

    func recordProgress(id: Int64, received: Int64, expected: Int64, partialBytes: Int64) throws -> Bool {
        try db.cachedStatement(
            literal: """
                UPDATE tasks SET count_of_bytes_received = \(received), count_of_bytes_expected = \(expected), partial_bytes = \(partialBytes)
                WHERE id = \(id) AND state = \(TaskState.running)
                """
        ).execute()
        return db.changesCount > 0
    }

    func recordUploadProgress(id: Int64, sent: Int64, expected: Int64) throws -> Bool {
        try db.cachedStatement(
            literal: """
                UPDATE tasks SET count_of_bytes_sent = \(sent), count_of_bytes_expected_to_send = \(expected)
                WHERE id = \(id) AND state = \(TaskState.running)
                """
        ).execute()
        return db.changesCount > 0
    }

    func recordReply(id: Int64, reply: StoredReply) throws {
        let json = String(decoding: try JSONEncoder().encode(reply), as: UTF8.self)
        try db.execute(literal: "UPDATE tasks SET reply = \(json) WHERE id = \(id)")
    }

    func forgetContent(id: Int64) throws {
        try db.execute(literal: "UPDATE tasks SET file = NULL WHERE id = \(id)")
    }

    func releaseResumeData(sessionID: Int64) throws -> [Int64] {
        try SQLRequest<Int64>(
            literal: """
                UPDATE tasks SET partial_bytes = 0
                WHERE session_id = \(sessionID) AND state = \(TaskState.completed) AND partial_bytes > 0 RETURNING id
                """
        ).fetchAll(db)
    }

    func expiredContent(at now: Date) throws -> [TransferTask] {
        try SQLRequest<TransferTask>(
            literal: """
                SELECT t.* FROM tasks t JOIN sessions s ON s.id = t.session_id
                WHERE t.state = \(TaskState.completed) AND (t.file IS NOT NULL OR t.reply IS NOT NULL)
                  AND julianday(t.completed_at) + COALESCE(json_extract(s.configuration, '$.retentionPeriod'), 604800) / 86400.0 < julianday(\(now))
                  AND NOT EXISTS (SELECT 1 FROM tasks u WHERE u.source_task_id = t.id AND u.state <> \(TaskState.completed))
                """
        ).fetchAll(db)
    }

    func nextAttemptDate(after now: Date) throws -> Date? {
        try SQLRequest<Date>(
            literal:
                "SELECT MIN(next_attempt_at) FROM tasks WHERE state = \(TaskState.running) AND next_attempt_at > \(StoredDate.text(now))",
            cached: true
        ).fetchOne(db)
    }

    func queueHeads(excluding transferring: [Int64], dueAt now: Date, depth: Int) throws -> [QueuedTask] {
        let excluded = Set(transferring)
        let boosted = try boostedTasks(dueAt: now).filter { !excluded.contains($0.rowID) }
        let boostedIDs = Set(boosted.map(\.rowID))
        var heads: [QueuedTask] = []
        var queue = try nextQueue(after: nil)
        while let (sessionID, origin) = queue {
            let first = boosted.filter { $0.sessionId == sessionID && $0.origin == origin }
                .sorted { ($0.priority, -$0.rowID) > ($1.priority, -$1.rowID) }
            let rest = try SQLRequest<TransferTask>(
                literal: """
                    SELECT * FROM tasks
                    WHERE state = \(TaskState.running) AND session_id = \(sessionID) AND origin = \(origin)
                      AND (next_attempt_at IS NULL OR next_attempt_at <= \(StoredDate.text(now)))
                    ORDER BY priority DESC, id LIMIT \(depth + excluded.count + first.count)
                    """,
                cached: true
            ).fetchAll(db)
            let ranked = (first + rest.filter { !excluded.contains($0.rowID) && !boostedIDs.contains($0.rowID) }).prefix(depth)
            if !ranked.isEmpty {
                let configuration = try configuration(ofSession: sessionID)
                for (index, task) in ranked.enumerated() {
                    heads.append(
                        QueuedTask(task: task, configuration: configuration, turn: index + 1, boosted: boostedIDs.contains(task.rowID))
                    )
                }
            }
            queue = try nextQueue(after: (sessionID, origin))
        }
        return heads
    }

    /// The first queue, by session and origin, of running tasks after `previous`: one index seek, so that walking
    /// every queue costs one seek per queue however many tasks wait in each.
    private func nextQueue(after previous: (sessionID: Int64, origin: String)?) throws -> (Int64, String)? {
        let (sessionID, origin) = previous ?? (Int64.min, "")
        let row = try SQLRequest<Row>(
            literal: """
                SELECT session_id, origin FROM tasks
                WHERE state = \(TaskState.running) AND (session_id, origin) > (\(sessionID), \(origin))
                ORDER BY session_id, origin LIMIT 1
                """,
            cached: true
        ).fetchOne(db)
        return row.map { ($0["session_id"], $0["origin"]) }
    }

    /// Queued tasks of active background tasks, which run ahead of their session's other tasks: found from the
    /// active background tasks, whatever the depth of the queue.
    private func boostedTasks(dueAt now: Date) throws -> [TransferTask] {
        try SQLRequest<TransferTask>(
            literal: """
                SELECT t.* FROM background_tasks b CROSS JOIN tasks t
                WHERE b.state = \(BackgroundTask.State.active)
                  AND t.background_task IS NOT NULL AND t.background_task = b.public_id AND t.state = \(TaskState.running)
                  AND (t.next_attempt_at IS NULL OR t.next_attempt_at <= \(StoredDate.text(now)))
                """,
            cached: true
        ).fetchAll(db)
    }

    private func configuration(ofSession sessionID: Int64) throws -> SessionConfiguration {
        let json = try SQLRequest<String>(literal: "SELECT configuration FROM sessions WHERE id = \(sessionID)", cached: true).fetchOne(db)
        return try Session.configurations.value(json ?? "{}")
    }
}
