import Foundation
import TransferdDomain

/// Renewals of leases on PostgreSQL, where a renewal runs beside this instance's writes and must not wait for the rows
/// they hold: it did, while holding the rows it had renewed already, and a write waiting for one of those closed the
/// circle (a deadlock, found after a second). It renews the rows it can lock at once and reports the others as busy.
struct PostgresLeaseRenewals: LeaseRenewals {
    func renew<Holding: Sendable>(
        _ table: LeaseTable,
        ids: [Int64],
        owner: String,
        until expiresAt: Date,
        reading column: String,
        _ db: any SQLConnection,
        _ holding: (StoredRow) throws -> Holding
    ) async throws -> [Int64: LeaseRenewal<Holding>] {
        let list = Placeholders.list(ids.count)
        let rows: SQLArguments = ids.map { $0 }
        var renewals: [Int64: LeaseRenewal<Holding>] = [:]
        let sql = """
            WITH held AS (SELECT id, \(column) AS held FROM \(table.name) WHERE \(table.owner) = ? AND id IN (\(list))),
            renewed AS (
                UPDATE \(table.name) SET \(table.expiry) = ?
                WHERE id IN (
                    SELECT id FROM \(table.name) WHERE \(table.owner) = ? AND id IN (\(list)) FOR NO KEY UPDATE SKIP LOCKED
                )
                RETURNING id, \(column) AS held
            )
            SELECT held.id, COALESCE(renewed.held, held.held), renewed.id IS NOT NULL
            FROM held LEFT JOIN renewed ON renewed.id = held.id
            """
        try await db.forEachRow(sql, [owner] + rows + [StoredDate.text(expiresAt), owner] + rows) { row in
            renewals[row[0]] = row[2] as Bool ? .renewed(try holding(row)) : .busy
        }
        return renewals
    }
}
