import GRDB

/// The arguments of a statement, bound in order to its `?` placeholders.
package typealias SQLArguments = [(any DatabaseValueConvertible)?]

/// A connection to the database inside one transaction, as the repositories use it: statements written once with
/// `?` placeholders, their arguments and results as GRDB's database values, whichever database runs them. Its
/// statements run on their caller's executor (`nonisolated(nonsending)`): under NIO's event loops as the global
/// executor, a statement that left it would go back through its loop's queue while its transaction held a connection.
protocol SQLConnection {
    /// The outbox's hot paths, written for this connection's database.
    var outbox: any OutboxPaths { get }
    /// The event log's paths, written for this connection's database.
    var eventLog: any EventLogPaths { get }
    /// The task queue's paths, written for this connection's database.
    var queue: any QueuePaths { get }
    /// The tasks' paths, written for this connection's database.
    var tasks: any TaskPaths { get }
    /// The history's paths, written for this connection's database.
    var history: any HistoryPaths { get }
    /// Writes of many rows, as this connection's database takes them.
    var batches: any RowBatches { get }
    /// Renewals of leases, as this connection's database takes them.
    var leases: any Leases { get }
    /// The clause that locks the rows a query reads until the transaction ends, written after a query whose rows
    /// the transaction may change: a write under READ COMMITTED (PostgreSQL's) must not change a row from what it
    /// read while another transaction changed it since (a lost update). Empty where the transaction has the
    /// database to itself (SQLite's writer) or only reads. `table` names the one table of a join whose rows lock.
    func rowLock(of table: String?) -> String
    /// The clause that locks the rows a query reads against every other write of them until the transaction ends,
    /// inserts of rows that refer to them included (`FOR UPDATE`); empty where the transaction has the database to
    /// itself (SQLite's writer).
    var exclusiveRowLock: String { get }
    /// Runs `sql`; returns the number of rows it inserted, changed or deleted.
    @discardableResult
    nonisolated(nonsending) func execute(_ sql: String, _ arguments: SQLArguments) async throws -> Int
    /// Runs the `INSERT` statement `sql` into a table with an `id` row id; returns the id of the row it inserted.
    nonisolated(nonsending) func insert(_ sql: String, _ arguments: SQLArguments) async throws -> Int64
    /// Runs the query `sql`, handing its rows to `body` in order; a row is valid only during its call.
    nonisolated(nonsending) func forEachRow(_ sql: String, _ arguments: SQLArguments, _ body: (StoredRow) throws -> Void) async throws
    /// Holds the write `sql`, whose result nothing reads, for the next statement that takes held writes in
    /// (``forEachRow(takingInHeldWrites:_:_:)``), or sends it on its own just before any other statement: the order
    /// of the transaction's writes is kept, and a round trip saved. A rollback forgets what is held. Where a statement
    /// is a call (SQLite), it runs now.
    nonisolated(nonsending) func hold(_ sql: String, _ arguments: SQLArguments) async throws
    /// ``forEachRow(_:_:_:)``, with the writes held so far sent as parts of its `WITH`: the parts of one statement
    /// see one snapshot, so `sql` must read nothing they write.
    nonisolated(nonsending) func forEachRow(
        takingInHeldWrites sql: String,
        _ arguments: SQLArguments,
        _ body: (StoredRow) throws -> Void
    ) async throws
    /// The claim lock a claim without a transaction holds (PostgreSQL's): its lease lets go of it.
    var claimTurn: ClaimTurn? { get }
}

extension SQLConnection {
    /// The clause that locks the rows of a query of one table (`rowLock(of:)`).
    var rowLock: String { rowLock(of: nil) }

    package var claimTurn: ClaimTurn? { nil }

    nonisolated(nonsending) func hold(_ sql: String, _ arguments: SQLArguments) async throws {
        try await execute(sql, arguments)
    }

    nonisolated(nonsending) func forEachRow(
        takingInHeldWrites sql: String,
        _ arguments: SQLArguments,
        _ body: (StoredRow) throws -> Void
    ) async throws {
        try await forEachRow(sql, arguments, body)
    }

    /// Runs `body` in a savepoint: if it throws, what it wrote is undone while the transaction goes on. Savepoints
    /// nest; `depth` is the number of savepoints open around this one.
    nonisolated(nonsending) func savepoint<T>(depth: Int, _ body: () async throws -> T) async throws -> T {
        let name = "s\(depth + 1)"
        try await execute("SAVEPOINT \(name)", [])
        do {
            let result = try await body()
            try await execute("RELEASE SAVEPOINT \(name)", [])
            return result
        } catch {
            try await execute("ROLLBACK TO SAVEPOINT \(name)", [])
            throw error
        }
    }

    /// Every row of the query, decoded.
    nonisolated(nonsending) func fetchAll<T>(
        _ sql: String,
        _ arguments: SQLArguments = [],
        _ decode: (StoredRow) throws -> T
    ) async throws -> [T] {
        var values: [T] = []
        try await forEachRow(sql, arguments) { values.append(try decode($0)) }
        return values
    }

    /// The query's first row, decoded; nil when it has none.
    nonisolated(nonsending) func fetchOne<T>(
        _ sql: String,
        _ arguments: SQLArguments = [],
        _ decode: (StoredRow) throws -> T
    ) async throws -> T? {
        var value: T?
        try await forEachRow(sql, arguments) { row in
            if value == nil { value = try decode(row) }
        }
        return value
    }

    /// The first column of every row.
    nonisolated(nonsending) func values<V: DatabaseValueConvertible>(_ sql: String, _ arguments: SQLArguments = []) async throws -> [V] {
        try await fetchAll(sql, arguments) { $0[0] }
    }

    /// The first column of the first row; nil when there is no row or it holds NULL.
    nonisolated(nonsending) func value<V: DatabaseValueConvertible>(_ sql: String, _ arguments: SQLArguments = []) async throws -> V? {
        try await fetchOne(sql, arguments) { $0[0] as V? } ?? nil
    }
}

/// The `?` placeholders of `count` values, `?, ?, ?`: a row's columns, or a list (`IN (…)`); an empty list is
/// `NULL`, which matches nothing and keeps the SQL valid.
enum Placeholders {
    static func list(_ count: Int) -> String {
        count == 0 ? "NULL" : repeatElement("?", count: count).joined(separator: ", ")
    }
}
