import Foundation
import TransferdDomain

/// The history's paths on PostgreSQL: an event's position in its tenant's stream is its commit's (`event_commits`),
/// which goes with the last of its events, and the server keeps its own free space (autovacuum).
struct PostgresHistory: HistoryPaths {
    func removeEvents(sessionID: Int64, after trimmedThrough: Int64, through sequence: Int64, _ db: any SQLConnection) async throws -> Int {
        let transactions: [String] = try await db.values(
            "DELETE FROM events WHERE session_id = ? AND sequence > ? AND sequence <= ? RETURNING CAST(transaction_id AS text)",
            [sessionID, trimmedThrough, sequence]
        )
        try await db.execute(
            """
            DELETE FROM event_commits c WHERE c.transaction_id IN (
                SELECT DISTINCT CAST(value AS xid8) FROM json_array_elements_text(CAST(? AS json))
            ) AND NOT EXISTS (SELECT 1 FROM events e WHERE e.transaction_id = c.transaction_id)
            """,
            [try String(decoding: JSONEncoder().encode(Array(Set(transactions))), as: UTF8.self)]
        )
        return transactions.count
    }

    /// The batch's events first, then their commits, then the last of those: joined in one go, the planner walked the
    /// commits from the newest back and compared each with every event of the batch (850 ms a batch of 5,000 against
    /// 7 ms).
    func lastPosition(
        sessionID: Int64,
        after trimmedThrough: Int64,
        through sequence: Int64,
        _ db: any SQLConnection
    ) async throws -> TenantEventCursor? {
        try await db.fetchOne(
            """
            WITH trimmed AS MATERIALIZED (
                SELECT id, transaction_id FROM events WHERE session_id = ? AND sequence > ? AND sequence <= ?
            ), commits AS MATERIALIZED (
                SELECT position, transaction_id FROM event_commits WHERE transaction_id IN (SELECT transaction_id FROM trimmed)
            )
            SELECT c.position, (SELECT MAX(t.id) FROM trimmed t WHERE t.transaction_id = c.transaction_id)
            FROM commits c ORDER BY c.position DESC LIMIT 1
            """,
            [sessionID, trimmedThrough, sequence]
        ) { row in TenantEventCursor(commit: row[0], id: row[1]) }
    }

    func reclaimSpace(pages: Int, _ db: any SQLConnection) async throws -> Int { 0 }

    func databaseBytes(_ db: any SQLConnection) async throws -> Int64 {
        try await db.value("SELECT pg_database_size(current_database())") ?? 0
    }
}
