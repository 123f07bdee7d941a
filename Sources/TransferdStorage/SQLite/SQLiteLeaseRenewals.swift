import Foundation
import TransferdDomain

/// Renewals of leases on SQLite, whose writer has the database to itself: one `UPDATE` of them all.
struct SQLiteLeaseRenewals: LeaseRenewals {
    let db: SQLiteConnection

    func renewTasks(ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<TaskState>] {
        try await renew(table: "tasks", owner: "lease_owner", expiry: "lease_expires_at", returning: "id, state", ids, owner, expiresAt) {
            .renewed(try RowCoding.enumeration($0["state"] as String, "state"))
        }
    }

    func renewDeliveries(sessionIDs ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<Void>] {
        try await renew(
            table: "sessions",
            owner: "delivery_owner",
            expiry: "delivery_lease_expires_at",
            returning: "id",
            ids,
            owner,
            expiresAt
        ) {
            _ in .renewed(())
        }
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
