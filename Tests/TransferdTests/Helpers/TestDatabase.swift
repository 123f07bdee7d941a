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

    /// The checkpoints (`partial_bytes`) of the running tasks that have one, by task identifier.
    func checkpoints() throws -> [Int: Int] {
        try queue.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT task_identifier, partial_bytes FROM tasks WHERE state = 'running' AND partial_bytes > 0"
            )
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["task_identifier"], $0["partial_bytes"]) })
        }
    }
}
