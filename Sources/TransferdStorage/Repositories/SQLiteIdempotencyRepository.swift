import Foundation
import GRDB
import TransferdDomain

/// Idempotency keys on SQLite.
struct SQLiteIdempotencyRepository: IdempotencyRepository {
    let db: Database

    func find(tenantID: Int64, key: String) throws -> IdempotencyRecord? {
        guard
            let row = try SQLRequest<Row>(literal: "SELECT * FROM idempotency_keys WHERE tenant_id = \(tenantID) AND key = \(key)")
                .fetchOne(db)
        else {
            return nil
        }
        let response = try (row["status"] as Int?).map { status in
            IdempotencyRecord.Response(
                status: status,
                headers: try JSONDecoder().decode([[String]].self, from: Data((row["headers"] as String? ?? "[]").utf8)),
                body: row["body"] ?? Data()
            )
        }
        return IdempotencyRecord(fingerprint: row["fingerprint"], response: response)
    }

    func reserve(tenantID: Int64, key: String, fingerprint: String, at now: Date) throws {
        try db.execute(
            literal:
                "INSERT INTO idempotency_keys (tenant_id, key, fingerprint, created_at) VALUES (\(tenantID), \(key), \(fingerprint), \(now))"
        )
    }

    func complete(tenantID: Int64, key: String, response: IdempotencyRecord.Response) throws {
        let headers = String(decoding: try JSONEncoder().encode(response.headers), as: UTF8.self)
        try db.execute(
            literal: """
                UPDATE idempotency_keys SET status = \(response.status), headers = \(headers), body = \(response.body)
                WHERE tenant_id = \(tenantID) AND key = \(key)
                """
        )
    }

    func release(tenantID: Int64, key: String) throws {
        try db.execute(literal: "DELETE FROM idempotency_keys WHERE tenant_id = \(tenantID) AND key = \(key) AND status IS NULL")
    }

    func deleteCreated(before cutoff: Date, tenantID: Int64?, key: String?) throws {
        if let tenantID, let key {
            try db.execute(
                literal: "DELETE FROM idempotency_keys WHERE tenant_id = \(tenantID) AND key = \(key) AND created_at < \(cutoff)"
            )
        } else {
            try db.execute(literal: "DELETE FROM idempotency_keys WHERE created_at < \(cutoff)")
        }
    }
}
