import GRDB

/// Records whose Swift properties (`camelCase`) map to `snake_case` columns, as the migrations name them.
protocol SnakeCaseColumns: FetchableRecord, EncodableRecord {}

extension SnakeCaseColumns {
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
    static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
}
