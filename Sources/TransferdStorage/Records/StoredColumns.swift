import GRDB
import Synchronization

/// A row's stored columns (all but `id`) with their values: one mapping from which its record writes itself
/// through GRDB (`encode(to:)`) and through the cached statements below.
typealias StoredColumns = KeyValuePairs<String, (any DatabaseValueConvertible)?>

/// Inserts and updates of whole rows through cached statements, bound by position. GRDB's record `insert` and
/// `update` build the statement's text, look up the table's primary key and fill a container of every column by
/// name on each call: for a task, more than the SQLite work itself, on the one writer (creating a task, each
/// transition of a transfer).
///
/// A table's rows always carry the same columns in the same order, so each statement's text is built once per table
/// (building it on every call was a tenth of the writer's time when creating tasks).
enum RowStatements {
    /// Inserts a row into `table`; returns its row id.
    static func insert(into table: String, _ columns: StoredColumns, _ db: Database) throws -> Int64 {
        let sql = texts.text(.insert, table, columns) {
            let names = columns.map(\.key).joined(separator: ", ")
            let placeholders = repeatElement("?", count: columns.count).joined(separator: ", ")
            return "INSERT INTO \(table) (\(names)) VALUES (\(placeholders))"
        }
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(columns.map(\.value)))
        return db.lastInsertedRowID
    }

    /// Writes every column of the row `id` of `table`; a row that is not there is `RecordError.recordNotFound`, as
    /// GRDB's own update.
    static func update(_ table: String, id: Int64, _ columns: StoredColumns, _ db: Database) throws {
        let sql = texts.text(.update, table, columns) {
            "UPDATE \(table) SET \(columns.map { "\($0.key) = ?" }.joined(separator: ", ")) WHERE id = ?"
        }
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(columns.map(\.value) + [id]))
        guard db.changesCount > 0 else {
            throw RecordError.recordNotFound(databaseTableName: table, key: ["id": id.databaseValue])
        }
    }

    private static let texts = StatementTexts()

    /// The statements' texts by kind and table, each built on first use.
    private final class StatementTexts: Sendable {
        enum Kind: Hashable, Sendable { case insert, update }

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

extension PersistenceContainer {
    /// Fills the container from a row's id and stored columns.
    mutating func fill(id: Int64?, _ columns: StoredColumns) {
        self["id"] = id
        for (column, value) in columns { self[column] = value }
    }
}
