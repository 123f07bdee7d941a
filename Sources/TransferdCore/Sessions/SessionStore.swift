import Foundation
import GRDB

/// Reads and creates sessions. Changes of a session's state go through `TaskLifecycle`, which owns its tasks.
struct SessionStore: Sendable {
    let database: AppDatabase

    /// Returns the live session with this identifier, or creates it: never two live sessions with one identifier.
    /// A reconnect keeps the session's original configuration, like re-creating a background NSURLSession.
    func createOrReconnect(identifier: String, configuration: SessionConfiguration) async throws -> (session: Session, created: Bool) {
        try await database.pool.write { db in
            if let live = try Session.filter(Column("identifier") == identifier && Column("state") != Session.State.invalidated.rawValue)
                .fetchOne(db)
            {
                return (live, false)
            }
            var session = Session(identifier: identifier, configuration: configuration, createdAt: Date())
            try session.insert(db)
            return (session, true)
        }
    }

    /// The session an identifier names now: the live one, else the most recently invalidated one.
    func session(identifier: String) async throws -> Session {
        guard Session.isValidIdentifier(identifier) else {
            throw Problem.invalidField("identifier", "must be 1 to 200 characters of A-Z, a-z, 0-9, '.', '_' or '-'")
        }
        let session = try await database.pool.read { db in
            try Session.filter(Column("identifier") == identifier).order(Column("id").desc).fetchOne(db)
        }
        guard let session else { throw Problem.notFound("No session has the identifier `\(identifier)`.") }
        return session
    }

    /// Sessions in creation order, after the row id `cursor`.
    func list(after cursor: Int64, limit: Int) async throws -> [Session] {
        try await database.pool.read { db in
            try Session.filter(Column("id") > cursor).order(Column("id")).limit(limit).fetchAll(db)
        }
    }

    /// How many tasks each session has in each state.
    func taskCounts(sessionIDs: [Int64]) async throws -> [Int64: [TaskState: Int]] {
        try await database.pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT session_id, state, COUNT(*) AS count FROM tasks
                    WHERE session_id IN (SELECT value FROM json_each(?)) GROUP BY session_id, state
                    """,
                arguments: [String(decoding: try JSONEncoder().encode(sessionIDs), as: UTF8.self)]
            )
            var counts: [Int64: [TaskState: Int]] = [:]
            for row in rows {
                guard let state = TaskState(rawValue: row["state"]) else { continue }
                counts[row["session_id"], default: [:]][state] = row["count"]
            }
            return counts
        }
    }
}
