/// Writes of many rows on PostgreSQL, where a statement is a round trip: an insert of as many rows a statement as its
/// 65,535 parameters hold (a batch of 1,000 tasks was 1,000 round trips), and an update of any number of rows as one
/// JSON parameter (``JSONRows``).
struct PostgresRowBatches: RowBatches {
    func insert(into table: String, rows: [StoredColumns], _ db: any SQLConnection) async throws -> [Int64] {
        var ids: [Int64] = []
        ids.reserveCapacity(rows.count)
        for (sql, arguments) in Self.insertions(into: table, rows: rows) {
            // Rows come back in the order of the VALUES list.
            await ids += try db.values(sql + " RETURNING id", arguments)
        }
        return ids
    }

    func update(_ table: String, rows: [(id: Int64, columns: StoredColumns)], _ db: any SQLConnection) async throws {
        guard let first = rows.first?.columns, rows.count > 1 else {
            for row in rows { try await RowStatements.update(table, id: row.id, row.columns, db) }
            return
        }
        let written = try await db.execute(Self.update(table, first), try Self.arguments(rows))
        guard written == rows.count else { throw StoreError.rowNotFound("\(rows.count - written) of \(rows.count) rows of \(table)") }
    }

    func holdUpdates(_ table: String, rows: [(id: Int64, columns: StoredColumns)], _ db: any SQLConnection) async throws {
        guard let first = rows.first?.columns else { return }
        try await db.hold(Self.update(table, first), try Self.arguments(rows))
    }

    func update(
        _ table: String,
        rows: [(id: Int64, columns: StoredColumns)],
        matching: StoredColumns,
        returning: [String],
        _ db: any SQLConnection,
        _ body: (_ id: Int64, _ returned: StoredRow) throws -> Void
    ) async throws {
        guard let first = rows.first?.columns, rows.count > 1 else {
            for (id, columns) in rows {
                try await RowStatements.update(table, id: id, columns, matching: matching, returning: returning, db) { try body(id, $0) }
            }
            return
        }
        let sql = RowStatements.texts.text(.updateRows, table, first, matching: matching, returning: returning) {
            Self.update(table, first) + matching.map { " AND t.\($0.key) = ?" }.joined()
                + " RETURNING t.id\(returning.map { ", t." + $0 }.joined())"
        }
        try await db.forEachRow(sql, try Self.arguments(rows) + matching.map(\.value)) { row in try body(row[0], row) }
    }

    func hold(into table: String, rows: [(id: Int64, columns: StoredColumns)], _ db: any SQLConnection) async throws {
        for (sql, arguments) in Self.insertions(into: table, rows: rows.map { ["id": $0.id] + $0.columns }) {
            try await db.hold(sql, arguments)
        }
    }

    /// The multi-row `INSERT`s of rows of one shape: as many rows a statement as its 65,535 parameters hold.
    private static func insertions(into table: String, rows: [StoredColumns]) -> [(sql: String, arguments: SQLArguments)] {
        guard let first = rows.first else { return [] }
        let names = first.map(\.key).joined(separator: ", ")
        let perStatement = 65_535 / first.count
        return stride(from: 0, to: rows.count, by: perStatement).map { start in
            let chunk = rows[start..<min(start + perStatement, rows.count)]
            let values = repeatElement("(\(Placeholders.list(first.count)))", count: chunk.count).joined(separator: ", ")
            return ("INSERT INTO \(table) (\(names)) VALUES \(values)", chunk.flatMap { $0.map(\.value) })
        }
    }

    /// The `UPDATE` of rows of `table` (as `t`) from the JSON of their columns (as `v`), its arguments `arguments`.
    private static func update(_ table: String, _ columns: StoredColumns) -> String {
        RowStatements.texts.text(.updateRows, table, columns) {
            """
            UPDATE \(table) AS t SET \(columns.map { "\($0.key) = v.\($0.key)" }.joined(separator: ", "))
            FROM \(JSONRows.source(of: table)) WHERE t.id = v.id
            """
        }
    }

    private static func arguments(_ rows: [(id: Int64, columns: StoredColumns)]) throws -> SQLArguments {
        [try JSONRows.text(rows.map { ["id": $0.id] + $0.columns })]
    }
}
