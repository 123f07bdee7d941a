import GRDB
import TransferdDomain

/// Background tasks.
struct SQLBackgroundTaskRepository: BackgroundTaskRepository {
    let db: any SQLConnection

    func insert(_ task: BackgroundTask) async throws -> BackgroundTask {
        var task = task
        task.id = try await RowStatements.insert(into: BackgroundTask.table, task.storedColumns(), db)
        return task
    }

    func update(_ task: BackgroundTask) async throws {
        try await RowStatements.update(BackgroundTask.table, id: task.rowID, task.storedColumns(), db)
    }

    func find(publicID: String) async throws -> BackgroundTask? {
        try await db.fetchOne("SELECT * FROM background_tasks WHERE public_id = ?\(db.rowLock)", [publicID], BackgroundTask.init(row:))
    }

    func find(publicID: String, sessionID: Int64) async throws -> BackgroundTask? {
        try await db.fetchOne(
            "SELECT * FROM background_tasks WHERE public_id = ? AND session_id = ?\(db.rowLock)",
            [publicID, sessionID],
            BackgroundTask.init(row:)
        )
    }

    func list(sessionID: Int64) async throws -> [BackgroundTask] {
        try await db.fetchAll(
            "SELECT * FROM background_tasks WHERE session_id = ? ORDER BY id\(db.rowLock)",
            [sessionID],
            BackgroundTask.init(row:)
        )
    }

    func active() async throws -> [BackgroundTask] {
        try await db.fetchAll(
            "SELECT * FROM background_tasks WHERE state = ?\(db.rowLock)",
            [BackgroundTask.State.active],
            BackgroundTask.init(row:)
        )
    }
}
