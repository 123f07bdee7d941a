/// Writes of many rows on SQLite, where a statement is a call: one cached statement a row.
struct SQLiteRowBatches: RowBatches {
    func insert(into table: String, rows: [StoredColumns], _ db: any SQLConnection) async throws -> [Int64] {
        var ids: [Int64] = []
        ids.reserveCapacity(rows.count)
        for row in rows { ids.append(try await RowStatements.insert(into: table, row, db)) }
        return ids
    }

    func update(_ table: String, rows: [(id: Int64, columns: StoredColumns)], _ db: any SQLConnection) async throws {
        for row in rows { try await RowStatements.update(table, id: row.id, row.columns, db) }
    }

    func holdUpdates(_ table: String, rows: [(id: Int64, columns: StoredColumns)], _ db: any SQLConnection) async throws {
        try await update(table, rows: rows, db)
    }

    func update(
        _ table: String,
        rows: [(id: Int64, columns: StoredColumns)],
        matching: StoredColumns,
        returning: [String],
        _ db: any SQLConnection,
        _ body: (_ id: Int64, _ returned: StoredRow) throws -> Void
    ) async throws {
        for (id, columns) in rows {
            try await RowStatements.update(table, id: id, columns, matching: matching, returning: returning, db) { try body(id, $0) }
        }
    }

    func hold(into table: String, rows: [(id: Int64, columns: StoredColumns)], _ db: any SQLConnection) async throws {
        for row in rows { try await RowStatements.insertKeyed(into: table, ["id": row.id] + row.columns, db) }
    }
}
