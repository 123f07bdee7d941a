import Foundation
import TransferdDomain

/// Leases on SQLite, whose writer has the database to itself: a renewal is one `UPDATE` of them all.
struct SQLiteLeases: Leases {
    let db: SQLiteConnection

    func leaseDeliveries(sessionID: Int64, owner: String, until expiresAt: Date, at now: Date) async throws -> Bool {
        try await db.execute(
            "UPDATE sessions SET delivery_owner = ?, delivery_lease_expires_at = ? WHERE id = ? AND \(SQLSessionRepository.deliveriesFree)",
            [owner, StoredDate.text(expiresAt), sessionID, owner, StoredDate.text(now)]
        ) > 0
    }

    func releaseDeliveries(sessionID: Int64, owner: String) async throws {
        try await db.execute(
            "UPDATE sessions SET delivery_owner = NULL, delivery_lease_expires_at = NULL WHERE id = ? AND delivery_owner = ?",
            [sessionID, owner]
        )
    }

    func renewTasks(ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<TaskState>] {
        try await renew(table: "tasks", owner: "lease_owner", expiry: "lease_expires_at", returning: "id, state", ids, owner, expiresAt) {
            .renewed(try RowCoding.enumeration($0["state"] as String, "state"))
        }
    }

    func renewDeliveries(sessionIDs ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<Void>] {
        let renewed: (StoredRow) -> LeaseRenewal<Void> = { _ in .renewed(()) }
        return try await renew(
            table: "sessions",
            owner: "delivery_owner",
            expiry: "delivery_lease_expires_at",
            returning: "id",
            ids,
            owner,
            expiresAt,
            renewed
        )
    }

    private func renew<Holding: Sendable>(
        table: String,
        owner ownerColumn: String,
        expiry: String,
        returning columns: String,
        _ ids: [Int64],
        _ owner: String,
        _ expiresAt: Date,
        _ renewal: (StoredRow) throws -> LeaseRenewal<Holding>
    ) async throws -> [Int64: LeaseRenewal<Holding>] {
        var renewals: [Int64: LeaseRenewal<Holding>] = [:]
        let sql = """
            UPDATE \(table) SET \(expiry) = ? WHERE \(ownerColumn) = ? AND id IN (\(Placeholders.list(ids.count))) RETURNING \(columns)
            """
        try await db.forEachRow(sql, [StoredDate.text(expiresAt), owner] + ids.map { $0 }) { row in
            renewals[row["id"]] = try renewal(row)
        }
        return renewals
    }
}
