import GRDB

/// Direct access to a stopped service's database, to set up states only a crash can leave behind, or to see
/// what a crash left.
struct TestDatabase {
    let queue: DatabaseQueue

    init(dataDirectory: String) throws {
        queue = try DatabaseQueue(path: dataDirectory + "/transferd.sqlite")
    }

    func execute(_ sql: String) throws {
        try queue.write { db in try db.execute(sql: sql) }
    }

    /// The identifiers of the tasks in `state`.
    func taskIdentifiers(state: String) throws -> Set<Int> {
        try queue.read { db in
            Set(try Int.fetchAll(db, sql: "SELECT task_identifier FROM tasks WHERE state = ?", arguments: [state]))
        }
    }
}
