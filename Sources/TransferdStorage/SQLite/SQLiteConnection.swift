import GRDB
import GRDBSQLite

/// A GRDB connection as the repositories use it: every statement is prepared once per connection and cached, and
/// rows are read in place from SQLite's statement. GRDB lets a connection be used only inside its own access (on its
/// queue), so each statement is one access: `access` runs it at once on the calling thread when the connection is
/// free, which the store's turns make sure of.
struct SQLiteConnection: SQLConnection {
    /// Runs a statement's work on the connection.
    let access: (_ work: (Database) throws -> Void) throws -> Void
    /// For a statement sent without a transaction (`Store.lookup`): refuses a second one.
    var budget: StatementBudget? = nil

    var outbox: any OutboxPaths { SQLiteOutbox() }
    var eventLog: any EventLogPaths { SQLiteEventLog() }
    var queue: any QueuePaths { SQLiteQueue() }
    var tasks: any TaskPaths { SQLiteTasks() }
    var history: any HistoryPaths { SQLiteHistory() }
    var batches: any RowBatches { SQLiteRowBatches() }
    var leases: any Leases { SQLiteLeases(db: self) }

    func rowLock(of table: String?) -> String { "" }
    var exclusiveRowLock: String { "" }

    @discardableResult
    nonisolated(nonsending) func execute(_ sql: String, _ arguments: SQLArguments) async throws -> Int {
        try budget?.spend()
        var changes = 0
        try access { db in
            try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
            changes = db.changesCount
        }
        return changes
    }

    nonisolated(nonsending) func insert(_ sql: String, _ arguments: SQLArguments) async throws -> Int64 {
        try budget?.spend()
        var id: Int64 = 0
        try access { db in
            try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
            id = db.lastInsertedRowID
        }
        return id
    }

    /// A query that writes nothing is stepped here and its rows read in place from SQLite's statement; one that
    /// writes (`RETURNING`) goes through GRDB's cursor, which tells GRDB's transaction tracking what it did.
    nonisolated(nonsending) func forEachRow(_ sql: String, _ arguments: SQLArguments, _ body: (StoredRow) throws -> Void) async throws {
        try budget?.spend()
        try access { db in
            let statement = try db.cachedStatement(sql: sql)
            let bound = StatementArguments(arguments)
            guard statement.isReadonly else {
                let (rows, names) = (try Row.fetchCursor(statement, arguments: bound), statement.columnNames)
                while let row = try rows.next() { try body(StoredRow(row, names: names)) }
                return
            }
            try statement.setArguments(bound)
            let (sqlite, columns) = (statement.sqliteStatement, StatementColumns.of(statement))
            // Reset at once, so that a read outside a transaction lets go of its snapshot.
            defer { sqlite3_reset(sqlite) }
            while true {
                switch sqlite3_step(sqlite) {
                case SQLITE_ROW: try body(StoredRow(statement: sqlite, columns: columns))
                case SQLITE_DONE: return
                case let code:
                    throw DatabaseError(
                        resultCode: ResultCode(rawValue: code),
                        message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                        sql: sql,
                        arguments: bound
                    )
                }
            }
        }
    }
}
