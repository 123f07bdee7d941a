import GRDB
import TransferdDomain

/// A domain value stored as one row: Swift's `camelCase` properties map to the migrations' `snake_case` columns,
/// and an insert hands the row id back to the value.
package protocol RowRecord: Codable, FetchableRecord, MutablePersistableRecord, Persisted {}

extension RowRecord {
    package static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { ColumnKeys.strategy }
    package static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }

    package mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// A domain value stored as one row keyed by something other than a row id.
package protocol KeyedRecord: Codable, FetchableRecord, PersistableRecord {}

extension KeyedRecord {
    package static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { ColumnKeys.strategy }
    package static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
}
