import GRDB

/// A GRDB connection as the repositories use it: every statement is prepared once per connection and cached, and
/// rows are read in place from SQLite's statement.
struct SQLiteConnection: SQLConnection {
    let db: Database

    var dialect: SQLDialect { .sqlite }

    func rowLock(of table: String?) -> String { "" }

    @discardableResult
    func execute(_ sql: String, _ arguments: SQLArguments) throws -> Int {
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
        return db.changesCount
    }

    func insert(_ sql: String, _ arguments: SQLArguments) throws -> Int64 {
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
        return db.lastInsertedRowID
    }

    func forEachRow(_ sql: String, _ arguments: SQLArguments, _ body: (StoredRow) throws -> Void) throws {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
        while let row = try rows.next() { try body(StoredRow(row)) }
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        var result: T?
        try db.inSavepoint {
            result = try body()
            return .commit
        }
        guard let result else { preconditionFailure("a savepoint that committed ran its body") }
        return result
    }
}
