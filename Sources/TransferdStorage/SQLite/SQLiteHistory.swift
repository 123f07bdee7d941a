import TransferdDomain

/// The history's paths on SQLite: an event's position in its tenant's stream is its row id, and the file gives back
/// its free pages on demand (`auto_vacuum = INCREMENTAL`).
struct SQLiteHistory: HistoryPaths {
    func removeEvents(sessionID: Int64, after trimmedThrough: Int64, through sequence: Int64, _ db: any SQLConnection) async throws -> Int {
        try await db.execute(
            "DELETE FROM events WHERE session_id = ? AND sequence > ? AND sequence <= ?",
            [sessionID, trimmedThrough, sequence]
        )
    }

    func lastPosition(
        sessionID: Int64,
        after trimmedThrough: Int64,
        through sequence: Int64,
        _ db: any SQLConnection
    ) async throws -> TenantEventCursor? {
        try await db.fetchOne(
            "SELECT 0, MAX(id) FROM events WHERE session_id = ? AND sequence > ? AND sequence <= ? HAVING MAX(id) IS NOT NULL",
            [sessionID, trimmedThrough, sequence]
        ) { row in TenantEventCursor(commit: row[0], id: row[1]) }
    }

    func reclaimSpace(pages: Int, _ db: any SQLConnection) async throws -> Int {
        try await db.execute("PRAGMA incremental_vacuum(\(pages))", [])
        return try await db.value("PRAGMA freelist_count") ?? 0
    }

    func databaseBytes(_ db: any SQLConnection) async throws -> Int64 {
        let pages: Int64 = try await db.value("PRAGMA page_count") ?? 0
        let size: Int64 = try await db.value("PRAGMA page_size") ?? 0
        return pages * size
    }
}
