import GRDB
import TransferdDomain

/// Background tasks on SQLite.
struct SQLiteBackgroundTaskRepository: BackgroundTaskRepository {
    typealias Columns = BackgroundTask.Columns

    let db: Database

    func insert(_ task: BackgroundTask) throws -> BackgroundTask {
        var task = task
        try task.insert(db)
        return task
    }

    func update(_ task: BackgroundTask) throws {
        try task.update(db)
    }

    func find(publicID: String) throws -> BackgroundTask? {
        try BackgroundTask.filter(Columns.publicID == publicID).fetchOne(db)
    }

    func find(publicID: String, sessionID: Int64) throws -> BackgroundTask? {
        try BackgroundTask.filter(Columns.publicID == publicID && Columns.sessionID == sessionID).fetchOne(db)
    }

    func list(sessionID: Int64) throws -> [BackgroundTask] {
        try BackgroundTask.filter(Columns.sessionID == sessionID).order(Columns.id).fetchAll(db)
    }

    func active() throws -> [BackgroundTask] {
        try BackgroundTask.filter(Columns.state == BackgroundTask.State.active).fetchAll(db)
    }
}
