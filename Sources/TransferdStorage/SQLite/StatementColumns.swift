import GRDB
import Synchronization

/// The column names of each prepared statement, found by name through one dictionary kept for as long as the
/// statement: GRDB's rows build a dictionary of lowercased names on every execution, which for a wide join cost more
/// than SQLite's own work. An entry is used only while its names are still the statement's (the same array, so the
/// check costs nothing); a statement prepared again in its place is looked up again.
enum StatementColumns {
    /// Statements kept at most; all are forgotten past it (each is found again at its next execution).
    static let limit = 4096

    private static let known = Mutex<[ObjectIdentifier: ColumnNames]>([:])

    /// The names of `statement`'s result.
    static func of(_ statement: Statement) -> ColumnNames {
        let (key, names) = (ObjectIdentifier(statement), statement.columnNames)
        if let columns = known.withLock({ $0[key] }), columns.names == names { return columns }
        let columns = ColumnNames(names)
        known.withLock { known in
            if known.count >= limit { known.removeAll(keepingCapacity: true) }
            known[key] = columns
        }
        return columns
    }
}
