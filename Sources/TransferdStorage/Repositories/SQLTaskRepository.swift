import Foundation
import GRDB
import TransferdDomain

/// Transfer tasks: their rows, their endings and the content they keep.
struct SQLTaskRepository: TaskRepository, TaskRows {
    let db: any SQLConnection
    let vault: CredentialVault
    /// On PostgreSQL, the commit position and notification a creation's statement takes.
    var numbering: CommitNumbering? = nil
    /// The signals the transaction has announced so far, which a creation's statement notifies.
    var commitActions = CommitActions()

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

    /// Tasks whose row ids were reserved with their identifiers (``TakenTaskIdentifiers/rowIDs``) are held for the
    /// next statement (the creation's events).
    func insert(_ tasks: [TransferTask]) async throws -> [TransferTask] {
        let reserved = tasks.compactMap(\.id)
        let ids: [Int64]
        if !tasks.isEmpty, reserved.count == tasks.count {
            try await db.batches.hold(into: TransferTask.table, rows: try tasks.map { ($0.rowID, try $0.insertedColumns(vault)) }, db)
            ids = reserved
        } else {
            ids = try await db.batches.insert(into: TransferTask.table, rows: tasks.map { try $0.insertedColumns(vault) }, db)
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
        try await db.tasks.create(creation, self)
    }

    func endingBases(ids: [Int64], owner: String) async throws -> [TaskEnding.Basis] {
        try await db.tasks.endingBases(ids: ids, owner: owner, self)
    }

    func end(_ ending: TaskEnding) async throws -> [Event]? {
        try await db.tasks.end(ending, self)
    }

    func update(_ task: TransferTask) async throws {
        try await RowStatements.update(TransferTask.table, id: task.rowID, try task.storedColumns(), db)
    }

    func update(_ tasks: [TransferTask]) async throws {
        try await db.batches.update(TransferTask.table, rows: tasks.map { ($0.rowID, try $0.storedColumns()) }, db)
    }

    func holdUpdates(_ tasks: [TransferTask]) async throws {
        try await db.batches.holdUpdates(TransferTask.table, rows: tasks.map { ($0.rowID, try $0.storedColumns()) }, db)
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

    func recordReply(id: Int64, reply: StoredReply) async throws {
        try await db.execute("UPDATE tasks SET reply = ?, reserved_bytes = 0 WHERE id = ?", [try RowCoding.json(reply), id])
    }

    func forgetContent(id: Int64) async throws {
        try await db.execute("UPDATE tasks SET file = NULL WHERE id = ?", [id])
    }

    func releaseResumeData(sessionID: Int64) async throws -> [Int64] {
        try await db.values(
            "UPDATE tasks SET partial_bytes = 0, kept_ranges = NULL WHERE session_id = ? AND state = ? AND partial_bytes > 0 RETURNING id",
            [sessionID, TaskState.completed]
        )
    }

    func expiredContent(at now: Date) async throws -> [TransferTask] {
        return try await tasks(
            """
            SELECT t.* FROM tasks t JOIN sessions s ON s.id = t.session_id
            WHERE t.state = ? AND ((t.file IS NOT NULL AND (t.destination IS NULL OR t.destination LIKE ? ESCAPE '!'))
                OR t.reply IS NOT NULL) AND \(db.tasks.retentionExpired)
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
}
