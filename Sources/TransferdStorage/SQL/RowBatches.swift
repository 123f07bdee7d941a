/// Writes of many rows of one shape, which each database takes its own way (`PostgreSQL/PostgresRowBatches.swift`,
/// `SQLite/SQLiteRowBatches.swift`): on PostgreSQL, where a statement is a round trip, one statement for many rows;
/// on SQLite, where a statement is a call, one cached statement a row (``RowStatements``).
protocol RowBatches: Sendable {
    /// Inserts rows of one shape into `table`; returns their row ids, in order.
    func insert(into table: String, rows: [StoredColumns], _ db: any SQLConnection) async throws -> [Int64]
    /// Writes every column of `rows` of `table`, each row with its id (ids distinct); a row that is not there is
    /// `StoreError.rowNotFound`.
    func update(_ table: String, rows: [(id: Int64, columns: StoredColumns)], _ db: any SQLConnection) async throws
    /// ``update(_:rows:_:)``, held for the next statement that takes held writes in (`SQLConnection.hold`).
    func holdUpdates(_ table: String, rows: [(id: Int64, columns: StoredColumns)], _ db: any SQLConnection) async throws
    /// Writes every column of `rows` of `table` whose columns also hold the values of `matching`, and hands `body` the
    /// id of each row written with a row of its columns `returning`, read by name; a row that is not there or does
    /// not match is not written.
    func update(
        _ table: String,
        rows: [(id: Int64, columns: StoredColumns)],
        matching: StoredColumns,
        returning: [String],
        _ db: any SQLConnection,
        _ body: (_ id: Int64, _ returned: StoredRow) throws -> Void
    ) async throws
    /// Holds the insert of rows of one shape into `table`, each with the row id given, for the next statement that
    /// takes held writes in (`SQLConnection.hold`).
    func hold(into table: String, rows: [(id: Int64, columns: StoredColumns)], _ db: any SQLConnection) async throws
}
