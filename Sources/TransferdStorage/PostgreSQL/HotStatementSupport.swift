import PostgresNIO

extension PostgresBindings {
    /// Bindings of a hot statement's arguments, in order.
    init(_ values: any PostgresNonThrowingEncodable...) {
        self.init(capacity: values.count)
        for value in values { append(value) }
    }
}

extension PostgresPreparedStatement where Row == Int64 {
    /// A row of one `bigint`: an id.
    func decodeRow(_ row: PostgresRow) throws -> Int64 {
        try row.decode(Int64.self)
    }
}
