import GRDB

/// The columns of the `tasks` table in the table's own order, which is what `SELECT *` (or `t.*`) returns: a task
/// is read by position, since finding forty columns by name (each name lowercased and hashed) cost more than
/// SQLite's own work for a lookup. A case is its column's name in camel case; a test holds the order to the table.
enum TaskColumn: Int, CaseIterable {
    case id, sessionId, taskIdentifier, kind, state, taskDescription, priority, originalRequest, origin, currentUrl
    case response, countOfBytesReceived, countOfBytesExpected, error, file, createdAt, startedAt, completedAt, checksum
    case earliestBeginDate, nextAttemptAt, attempts, waitingReason, partialBytes, resumeValidator, notResumableReason
    case produceResumeData, connections, maxBytesPerSecond, uploadFrom, sourceFileId, sourceTaskId, multipart
    case countOfBytesSent, countOfBytesExpectedToSend, reply, maxBytes, backgroundTask, cancellation, leaseOwner, leaseExpiresAt
    case redirectPolicy, metrics, challenge, credentials, destination, objectUpload, fetchId, fetchResult, reservedBytes
    case traceparent, keptRanges
}

/// A task row's values by column: read by position, enumerations by raw value, JSON columns decoded (or taken from
/// a cache of decoded texts).
extension StoredRow {
    subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ column: TaskColumn) -> Value {
        self[column.rawValue]
    }

    func enumeration<T: RawRepresentable>(_ column: TaskColumn) throws -> T where T.RawValue == String {
        try RowCoding.enumeration(self[column] as String, "\(column)")
    }

    func optionalEnumeration<T: RawRepresentable>(_ column: TaskColumn) throws -> T? where T.RawValue == String {
        try (self[column] as String?).map { try RowCoding.enumeration($0, "\(column)") }
    }

    func json<T: Decodable>(_ column: TaskColumn) throws -> T? {
        try (self[column] as String?).map { try RowCoding.decode(T.self, json: $0) }
    }

    func json<T: Decodable>(_ column: TaskColumn, _ decoded: DecodedTexts<T>) throws -> T? {
        try (self[column] as String?).map { try decoded.value($0) }
    }
}
