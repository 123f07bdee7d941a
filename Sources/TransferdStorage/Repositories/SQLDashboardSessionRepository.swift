import Foundation
import TransferdDomain

/// The dashboard's signed-in sessions.
struct SQLDashboardSessionRepository: DashboardSessionRepository {
    let db: any SQLConnection

    func insert(_ session: DashboardSession) async throws {
        try await db.execute(
            "INSERT INTO dashboard_sessions (token_hash, api_key_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
            [
                session.tokenHash, session.apiKeyID, session.csrfToken, StoredDate.text(session.createdAt),
                StoredDate.text(session.expiresAt),
            ]
        )
    }

    func find(tokenHash: String) async throws -> DashboardSession? {
        try await db.fetchOne(
            "SELECT token_hash, api_key_id, csrf_token, created_at, expires_at FROM dashboard_sessions WHERE token_hash = ?",
            [tokenHash]
        ) { row in
            DashboardSession(
                tokenHash: row["token_hash"],
                apiKeyID: row["api_key_id"],
                csrfToken: row["csrf_token"],
                createdAt: row["created_at"],
                expiresAt: row["expires_at"]
            )
        }
    }

    func delete(tokenHash: String) async throws {
        try await db.execute("DELETE FROM dashboard_sessions WHERE token_hash = ?", [tokenHash])
    }

    func deleteAllButNewest(_ count: Int, apiKeyID: String) async throws {
        try await db.execute(
            """
            DELETE FROM dashboard_sessions WHERE api_key_id = ? AND token_hash NOT IN
                (SELECT token_hash FROM dashboard_sessions WHERE api_key_id = ? ORDER BY created_at DESC, token_hash LIMIT ?)
            """,
            [apiKeyID, apiKeyID, count]
        )
    }

    func deleteExpired(before date: Date) async throws {
        try await db.execute("DELETE FROM dashboard_sessions WHERE expires_at < ?", [StoredDate.text(date)])
    }
}
