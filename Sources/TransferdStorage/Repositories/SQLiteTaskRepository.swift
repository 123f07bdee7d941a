import Foundation
import GRDB
import TransferdDomain

/// Transfer tasks and their queue on SQLite.
struct SQLiteTaskRepository: TaskRepository {
    typealias Columns = TransferTask.Columns

    let db: Database

    func find(id: Int64) throws -> TransferTask? {
        try TransferTask.fetchOne(db, key: id)
    }

    func find(sessionID: Int64, taskIdentifier: Int64) throws -> TransferTask? {
        try SQLRequest<TransferTask>(
            literal: "SELECT * FROM tasks WHERE session_id = \(sessionID) AND task_identifier = \(taskIdentifier)",
            cached: true
        ).fetchOne(db)
    }

    func insert(_ task: TransferTask) throws -> TransferTask {
        var task = task
        try task.insert(db)
        // Read back, so that the task is shown as it is stored (dates at the database's precision).
        return try TransferTask.fetchOne(db, key: task.rowID) ?? task
    }

    func update(_ task: TransferTask) throws {
        try task.update(db)
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

    func count(sessionID: Int64) throws -> Int {
        try TransferTask.filter(Columns.sessionID == sessionID).fetchCount(db)
    }

    func countUnfinished(tenantID: Int64) throws -> Int {
        try SQLRequest<Int>(
            literal: """
                SELECT COUNT(*) FROM tasks t JOIN sessions s ON s.id = t.session_id
                WHERE s.tenant_id = \(tenantID) AND t.state <> \(TaskState.completed)
                """
        ).fetchOne(db) ?? 0
    }

    func workload(sessionID: Int64) throws -> (busy: Int, unfinished: Int) {
        let row = try SQLRequest<Row>(
            literal: """
                SELECT COUNT(*) FILTER (WHERE state IN (\(TaskState.running), \(TaskState.canceling))) AS busy,
                       COUNT(*) FILTER (WHERE state <> \(TaskState.completed)) AS unfinished
                FROM tasks WHERE session_id = \(sessionID)
                """
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
        try db.execute(
            literal: "UPDATE tasks SET started_at = COALESCE(started_at, \(at)) WHERE id = \(id) AND state = \(TaskState.running)"
        )
    }

    func recordProgress(id: Int64, received: Int64, expected: Int64, partialBytes: Int64) throws -> Bool {
        try db.execute(
            literal: """
                UPDATE tasks SET count_of_bytes_received = \(received), count_of_bytes_expected = \(expected), partial_bytes = \(partialBytes)
                WHERE id = \(id) AND state = \(TaskState.running)
                """
        )
        return db.changesCount > 0
    }

    func recordUploadProgress(id: Int64, sent: Int64, expected: Int64) throws -> Bool {
        try db.execute(
            literal: """
                UPDATE tasks SET count_of_bytes_sent = \(sent), count_of_bytes_expected_to_send = \(expected)
                WHERE id = \(id) AND state = \(TaskState.running)
                """
        )
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
            literal: "SELECT MIN(next_attempt_at) FROM tasks WHERE state = \(TaskState.running) AND next_attempt_at > \(now)"
        ).fetchOne(db)
    }

    func queueHeads(excluding transferring: [Int64], dueAt now: Date, depth: Int) throws -> [QueuedTask] {
        let rows = try SQLRequest<Row>(
            literal: """
                SELECT * FROM (
                    SELECT t.*, s.configuration AS session_configuration, b.id IS NOT NULL AS boosted,
                           ROW_NUMBER() OVER (
                               PARTITION BY t.session_id, t.origin ORDER BY b.id IS NOT NULL DESC, t.priority DESC, t.id
                           ) AS turn
                    FROM tasks t JOIN sessions s ON s.id = t.session_id
                    LEFT JOIN background_tasks b ON b.public_id = t.background_task AND b.state = \(BackgroundTask.State.active)
                    WHERE t.state = \(TaskState.running) AND t.id NOT IN (SELECT value FROM json_each(\(IDList(transferring).json)))
                      AND (t.next_attempt_at IS NULL OR t.next_attempt_at <= \(now))
                ) WHERE turn <= \(depth)
                """
        ).fetchAll(db)
        return try rows.map { row in
            let configuration = try JSONDecoder().decode(
                SessionConfiguration.self,
                from: Data((row["session_configuration"] as String).utf8)
            )
            return QueuedTask(task: try TransferTask(row: row), configuration: configuration, turn: row["turn"], boosted: row["boosted"])
        }
    }
}
