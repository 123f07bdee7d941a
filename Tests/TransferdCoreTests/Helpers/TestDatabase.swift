import GRDB

/// Direct access to a stopped service's database, to set up states only a crash can leave behind.
struct TestDatabase {
    let queue: DatabaseQueue

    init(dataDirectory: String) throws {
        queue = try DatabaseQueue(path: dataDirectory + "/transferd.sqlite")
    }

    func execute(_ sql: String) throws {
        try queue.write { db in try db.execute(sql: sql) }
    }
}
