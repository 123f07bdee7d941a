import Foundation
import TransferdDomain

/// Renewals of leases on SQLite, whose writer has the database to itself: one `UPDATE` of them all.
struct SQLiteLeaseRenewals: LeaseRenewals {
    func renew<Holding: Sendable>(
        _ table: LeaseTable,
        ids: [Int64],
        owner: String,
        until expiresAt: Date,
        reading column: String,
        _ db: any SQLConnection,
        _ holding: (StoredRow) throws -> Holding
    ) async throws -> [Int64: LeaseRenewal<Holding>] {
        var renewals: [Int64: LeaseRenewal<Holding>] = [:]
        let sql = """
            UPDATE \(table.name) SET \(table.expiry) = ? WHERE \(table.owner) = ? AND id IN (\(Placeholders.list(ids.count)))
            RETURNING id, \(column)
            """
        try await db.forEachRow(sql, [StoredDate.text(expiresAt), owner] + ids.map { $0 }) { row in
            renewals[row[0]] = .renewed(try holding(row))
        }
        return renewals
    }
}
