import GRDB

/// A row's stored columns (all but `id`) with their values: one mapping from which its record writes itself
/// through GRDB (`encode(to:)`) and through the cached statements below.
typealias StoredColumns = KeyValuePairs<String, (any DatabaseValueConvertible)?>

/// Inserts and updates of whole rows through cached statements, bound by position. GRDB's record `insert` and
/// `update` build the statement's text, look up the table's primary key and fill a container of every column by
/// name on each call: for a task, more than the SQLite work itself, on the one writer (creating a task, each
/// transition of a transfer).
enum RowStatements {
    /// Inserts a row into `table`; returns its row id.
    static func insert(into table: String, _ columns: StoredColumns, _ db: Database) throws -> Int64 {
        let names = columns.map(\.key).joined(separator: ", ")
        let placeholders = repeatElement("?", count: columns.count).joined(separator: ", ")
        try db.cachedStatement(sql: "INSERT INTO \(table) (\(names)) VALUES (\(placeholders))")
            .execute(arguments: StatementArguments(columns.map(\.value)))
        return db.lastInsertedRowID
    }

    /// Writes every column of the row `id` of `table`; a row that is not there is `RecordError.recordNotFound`, as
    /// GRDB's own update.
    static func update(_ table: String, id: Int64, _ columns: StoredColumns, _ db: Database) throws {
        let assignments = columns.map { "\($0.key) = ?" }.joined(separator: ", ")
        try db.cachedStatement(sql: "UPDATE \(table) SET \(assignments) WHERE id = ?")
            .execute(arguments: StatementArguments(columns.map(\.value) + [id]))
        guard db.changesCount > 0 else {
            throw RecordError.recordNotFound(databaseTableName: table, key: ["id": id.databaseValue])
        }
    }
}

extension PersistenceContainer {
    /// Fills the container from a row's id and stored columns.
    mutating func fill(id: Int64?, _ columns: StoredColumns) {
        self["id"] = id
        for (column, value) in columns { self[column] = value }
    }
}
