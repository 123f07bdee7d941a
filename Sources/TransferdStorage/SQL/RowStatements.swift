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
/// writer's time when creating tasks), and the connection prepares it once. Writes of many rows at once are each
/// database's own (``RowBatches``).
enum RowStatements {
    /// Inserts a row into `table`; returns its row id.
    static func insert(into table: String, _ columns: StoredColumns, _ db: any SQLConnection) async throws -> Int64 {
        try await db.insert(texts.text(.insert, table, columns) { insertion(into: table, columns) }, columns.map(\.value))
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

    /// Writes every column of the row `id` of `table` if its columns also hold the values of `matching`, and hands
    /// `body` its columns `returning` once written.
    static func update(
        _ table: String,
        id: Int64,
        _ columns: StoredColumns,
        matching: StoredColumns,
        returning: [String],
        _ db: any SQLConnection,
        _ body: (StoredRow) throws -> Void
    ) async throws {
        let sql = texts.text(.update, table, columns, matching: matching, returning: returning) {
            """
            UPDATE \(table) SET \(columns.map { "\($0.key) = ?" }.joined(separator: ", "))
            WHERE id = ?\(matching.map { " AND \($0.key) = ?" }.joined()) RETURNING \(returning.joined(separator: ", "))
            """
        }
        try await db.forEachRow(sql, columns.map(\.value) + [id] + matching.map(\.value), body)
    }

    private static func insertion(into table: String, _ columns: StoredColumns) -> String {
        "INSERT INTO \(table) (\(columns.map(\.key).joined(separator: ", "))) VALUES (\(Placeholders.list(columns.count)))"
    }

    /// The texts of the statements above, and of each database's writes of many rows.
    static let texts = StatementTexts()

    /// The statements' texts by kind, table and shape, each built on first use.
    final class StatementTexts: Sendable {
        enum Kind: Hashable, Sendable { case insert, upsert, update, updateRows }

        private struct Key: Hashable {
            var kind: Kind
            var table: String
            var columns: Int
            var matching: [String]
            var returning: [String]
        }

        private let built = Mutex<[Key: String]>([:])

        /// The text of a statement of `kind` writing `columns` of `table`, the row to write also holding the columns
        /// `matching`, answering its columns `returning`: `build()` on first use.
        func text(
            _ kind: Kind,
            _ table: String,
            _ columns: StoredColumns,
            matching: StoredColumns = [:],
            returning: [String] = [],
            build: () -> String
        ) -> String {
            let key = Key(kind: kind, table: table, columns: columns.count, matching: matching.map(\.key), returning: returning)
            if let known = built.withLock({ $0[key] }) { return known }
            let text = build()
            built.withLock { $0[key] = text }
            return text
        }
    }
}
