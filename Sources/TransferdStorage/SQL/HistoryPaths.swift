import TransferdDomain

/// The history's paths that each database takes its own way (`PostgreSQL/PostgresHistory.swift`,
/// `SQLite/SQLiteHistory.swift`): the events a trim removes and where they stood in their tenant's stream, and the
/// database's size and free space.
protocol HistoryPaths: Sendable {
    /// Removes the session's events after `trimmedThrough` through `sequence`, with what only they held; returns how
    /// many events went.
    func removeEvents(sessionID: Int64, after trimmedThrough: Int64, through sequence: Int64, _ db: any SQLConnection) async throws -> Int
    /// Where the last of the session's events after `trimmedThrough` through `sequence` stands in its tenant's stream;
    /// nil when there is none.
    func lastPosition(
        sessionID: Int64,
        after trimmedThrough: Int64,
        through sequence: Int64,
        _ db: any SQLConnection
    ) async throws -> TenantEventCursor?
    /// ``HistoryRepository/reclaimSpace(pages:)``.
    func reclaimSpace(pages: Int, _ db: any SQLConnection) async throws -> Int
    /// ``HistoryRepository/databaseBytes()``.
    func databaseBytes(_ db: any SQLConnection) async throws -> Int64
}
