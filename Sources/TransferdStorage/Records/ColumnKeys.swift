import GRDB
import Synchronization
import TransferdJSON

/// The coding key of a `snake_case` column, converted once per column name rather than once per decoded row
/// (GRDB's `convertFromSnakeCase` converts every column of every row, a large part of a lookup's cost).
enum ColumnKeys {
    private static let converted = Mutex<[String: String]>([:])

    static let strategy = DatabaseColumnDecodingStrategy.custom { column in
        MemberKey(stringValue: key(forColumn: column))
    }

    static func key(forColumn column: String) -> String {
        if let key = converted.withLock({ $0[column] }) { return key }
        var parts = column.split(separator: "_")
        let head = parts.isEmpty ? "" : String(parts.removeFirst())
        let key = head + parts.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        converted.withLock { $0[column] = key }
        return key
    }
}
