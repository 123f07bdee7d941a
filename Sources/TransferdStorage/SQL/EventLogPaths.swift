import TransferdDomain

/// The event log's paths that each database takes its own way (`PostgreSQL/PostgresEventLog.swift`,
/// `SQLite/SQLiteEventLog.swift`): appending a session's events with their sequences, and the tenant's stream, which
/// SQLite orders by row id (one writer commits in id order) and PostgreSQL by commit position. ``SQLEventRepository``
/// shares the rest of its SQL between the two.
protocol EventLogPaths: Sendable {
    /// Appends `events`, all of one session, numbered after its last sequence; returns each with its id and sequence,
    /// and the `event_types` of the session's subscriber (nil: no subscriber; `.some(nil)`: one that takes every
    /// type). On PostgreSQL, the transaction's first append takes its commit position from `numbering` and notifies
    /// the signals `announced` (``CommitNumbering``).
    func append(
        _ events: ArraySlice<Event>,
        _ db: any SQLConnection,
        numbering: CommitNumbering?,
        announcing announced: Set<Signal>
    ) async throws -> [(event: Event, subscriber: String??)]

    /// Where the tenant's stream stands now: a cursor past every event committed.
    func presentCursor(_ db: any SQLConnection) async throws -> TenantEventCursor

    /// The query of a page of a tenant's stream after `cursor`, with the arguments of its position: the query's
    /// arguments are the tenant's id, those, and the page's size. Its rows are events' columns with
    /// `session_identifier` and `commit_position`.
    func tenantPage(_ db: any SQLConnection, after cursor: TenantEventCursor) async throws -> (sql: String, position: SQLArguments)
}
