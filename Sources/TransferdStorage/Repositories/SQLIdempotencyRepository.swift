import Foundation
import GRDB
import TransferdDomain

/// Idempotency keys.
struct SQLIdempotencyRepository: IdempotencyRepository {
    let db: any SQLConnection

    func find(tenantID: Int64, key: String) async throws -> IdempotencyRecord? {
        try await db.fetchOne("SELECT * FROM idempotency_keys WHERE tenant_id = ? AND key = ?\(db.rowLock)", [tenantID, key]) { row in
            let response = try (row["status"] as Int?).map { status in
                IdempotencyRecord.Response(
                    status: status,
                    headers: try JSONDecoder().decode([[String]].self, from: Data((row["headers"] as String? ?? "[]").utf8)),
                    body: row["body"] ?? Data()
                )
            }
            return IdempotencyRecord(fingerprint: row["fingerprint"], response: response)
        }
    }

    func reserve(tenantID: Int64, key: String, fingerprint: String, at now: Date) async throws {
        try await db.execute(
            "INSERT INTO idempotency_keys (tenant_id, key, fingerprint, created_at) VALUES (?, ?, ?, ?)",
            [tenantID, key, fingerprint, StoredDate.text(now)]
        )
    }

    func complete(tenantID: Int64, key: String, response: IdempotencyRecord.Response) async throws {
        let headers = String(decoding: try JSONEncoder().encode(response.headers), as: UTF8.self)
        try await db.execute(
            "UPDATE idempotency_keys SET status = ?, headers = ?, body = ? WHERE tenant_id = ? AND key = ?",
            [response.status, headers, response.body, tenantID, key]
        )
    }

    func release(tenantID: Int64, key: String) async throws {
        try await db.execute("DELETE FROM idempotency_keys WHERE tenant_id = ? AND key = ? AND status IS NULL", [tenantID, key])
    }

    func deleteCreated(before cutoff: Date, tenantID: Int64?, key: String?) async throws {
        if let tenantID, let key {
            try await db.execute(
                "DELETE FROM idempotency_keys WHERE tenant_id = ? AND key = ? AND created_at < ?",
                [tenantID, key, StoredDate.text(cutoff)]
            )
        } else {
            try await db.execute("DELETE FROM idempotency_keys WHERE created_at < ?", [StoredDate.text(cutoff)])
        }
    }
}
