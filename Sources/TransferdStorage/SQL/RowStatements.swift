import GRDB
import Synchronization

/// A row's stored columns with their values, in the order its statements bind them; written as a dictionary literal.
struct StoredColumns: RandomAccessCollection, ExpressibleByDictionaryLiteral {
    typealias Element = (key: String, value: (any DatabaseValueConvertible)?)
    private var columns: [Element]

    init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        columns = elements.map { (key: $0.0, value: $0.1) }
    }

    var startIndex: Int { columns.startIndex }
    var endIndex: Int { columns.endIndex }
    subscript(position: Int) -> Element { columns[position] }

    /// The columns of `first`, then those of `second`.
    static func + (first: StoredColumns, second: StoredColumns) -> StoredColumns {
        var joined = first
        joined.columns += second.columns
        return joined
    }
}

/// Inserts and updates of whole rows, bound by position. A table's rows always carry the same columns in the same
/// order, so each statement's text is built once per table and shape (building it on every call was a tenth of the
/// writer's time when creating tasks), and the connection prepares it once.
enum RowStatements {
    /// Inserts a row into `table`; returns its row id.
    static func insert(into table: String, _ columns: StoredColumns, _ db: any SQLConnection) async throws -> Int64 {
        try await db.insert(texts.text(.insert, table, columns) { insertion(into: table, columns) }, columns.map(\.value))
    }

    /// Inserts rows of one shape into `table`; returns their row ids, in order. On PostgreSQL, one statement for as
    /// many rows as its 65,535 parameters hold (a batch of 1,000 tasks was 1,000 round trips); on SQLite, where a
    /// statement is a call, one cached statement each.
    static func insert(into table: String, rows: [StoredColumns], _ db: any SQLConnection) async throws -> [Int64] {
        guard db.dialect == .postgres else {
            var ids: [Int64] = []
            for row in rows { ids.append(try await insert(into: table, row, db)) }
            return ids
        }
        var ids: [Int64] = []
        ids.reserveCapacity(rows.count)
        for (sql, arguments) in insertions(into: table, rows: rows) {
            // Rows come back in the order of the VALUES list.
            await ids += try db.values(sql + " RETURNING id", arguments)
        }
        return ids
    }

    /// Holds the insert of rows of one shape into `table`, each with the row id given (`SQLConnection.hold`): on
    /// PostgreSQL, one statement for as many rows as its parameters hold, sent with the statement that follows.
    static func hold(into table: String, rows: [(id: Int64, columns: StoredColumns)], _ db: any SQLConnection) async throws {
        for (sql, arguments) in insertions(into: table, rows: rows.map { ["id": $0.id] + $0.columns }) {
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

    /// Inserts a row into `table`, whose key is a column of its own rather than a row id.
    static func insertKeyed(into table: String, _ columns: StoredColumns, _ db: any SQLConnection) async throws {
        try await db.execute(texts.text(.insert, table, columns) { insertion(into: table, columns) }, columns.map(\.value))
    }

    /// Inserts a row into `table` keyed by its first column, or writes every other column of the row with that key.
    static func upsert(into table: String, _ columns: StoredColumns, _ db: any SQLConnection) async throws {
        let sql = texts.text(.upsert, table, columns) {
            let (key, others) = (columns[columns.startIndex].key, columns.dropFirst().map(\.key))
            return insertion(into: table, columns)
                + " ON CONFLICT (\(key)) DO UPDATE SET \(others.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))"
        }
        try await db.execute(sql, columns.map(\.value))
    }

    /// Writes every column of the row `id` of `table`; a row that is not there is `StoreError.rowNotFound`.
    static func update(_ table: String, id: Int64, _ columns: StoredColumns, _ db: any SQLConnection) async throws {
        let sql = texts.text(.update, table, columns) {
            "UPDATE \(table) SET \(columns.map { "\($0.key) = ?" }.joined(separator: ", ")) WHERE id = ?"
        }
        guard try await db.execute(sql, columns.map(\.value) + [id]) > 0 else { throw StoreError.rowNotFound("\(table) \(id)") }
    }

    /// Writes every column of `rows` of `table`, each row with its id (ids distinct); a row that is not there is
    /// `StoreError.rowNotFound`. On PostgreSQL, one statement for all of them (``JSONRows``); on SQLite, where a
    /// statement is a call, one cached statement each.
    static func update(_ table: String, rows: [(id: Int64, columns: StoredColumns)], _ db: any SQLConnection) async throws {
        guard let first = rows.first?.columns, db.dialect == .postgres, rows.count > 1 else {
            for row in rows { try await update(table, id: row.id, row.columns, db) }
            return
        }
        let sql = texts.text(.updateRows, table, first) { jsonUpdate(table, first) }
        let written = try await db.execute(sql, try jsonUpdateArguments(rows))
        guard written == rows.count else { throw StoreError.rowNotFound("\(rows.count - written) of \(rows.count) rows of \(table)") }
    }

    /// Holds the writes of every column of `rows` of `table`, each row with its id (ids distinct), for the next
    /// statement (`SQLConnection.hold`): on PostgreSQL, one `UPDATE` of them all; on SQLite, one cached statement each,
    /// at once.
    static func holdUpdates(_ table: String, rows: [(id: Int64, columns: StoredColumns)], _ db: any SQLConnection) async throws {
        guard let first = rows.first?.columns, db.dialect == .postgres else { return try await update(table, rows: rows, db) }
        try await db.hold(texts.text(.updateRows, table, first) { jsonUpdate(table, first) }, try jsonUpdateArguments(rows))
    }

    /// The `UPDATE` of rows of `table` as JSON (``JSONRows``), its arguments `jsonUpdateArguments`; on PostgreSQL.
    private static func jsonUpdate(_ table: String, _ columns: StoredColumns) -> String {
        """
        UPDATE \(table) AS t SET \(columns.map { "\($0.key) = v.\($0.key)" }.joined(separator: ", "))
        FROM \(JSONRows.source(of: table)) WHERE t.id = v.id
        """
    }

    private static func jsonUpdateArguments(_ rows: [(id: Int64, columns: StoredColumns)]) throws -> SQLArguments {
        [try JSONRows.text(rows.map { ["id": $0.id] + $0.columns })]
    }

    private static func insertion(into table: String, _ columns: StoredColumns) -> String {
        "INSERT INTO \(table) (\(columns.map(\.key).joined(separator: ", "))) VALUES (\(Placeholders.list(columns.count)))"
    }

    private static let texts = StatementTexts()

    /// The statements' texts by kind and table, each built on first use.
    private final class StatementTexts: Sendable {
        enum Kind: Hashable, Sendable { case insert, upsert, update, updateRows }

        private struct Key: Hashable {
            var kind: Kind
            var table: String
            var columns: Int
        }

        private let built = Mutex<[Key: String]>([:])

        func text(_ kind: Kind, _ table: String, _ columns: StoredColumns, build: () -> String) -> String {
            let key = Key(kind: kind, table: table, columns: columns.count)
            if let known = built.withLock({ $0[key] }) { return known }
            let text = build()
            built.withLock { $0[key] = text }
            return text
        }
    }
}
