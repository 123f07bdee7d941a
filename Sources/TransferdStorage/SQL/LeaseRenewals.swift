import Foundation
import TransferdDomain

/// Renewals of the leases an instance holds in a table's rows (tasks' transfers, sessions' deliveries).
///
/// On PostgreSQL a renewal runs beside this instance's writes and must not wait for the rows they hold: it did, while
/// holding the rows it had renewed already, and a write waiting for one of those closed the circle (a deadlock,
/// found after a second). It renews the rows it can lock at once and reports the others as busy.
enum LeaseRenewals {
    /// Renews the leases `owner` holds in `table`'s rows `ids` until `expiresAt`, with the value of `column` of each
    /// row renewed; a row whose lease `owner` no longer holds is missing from the answer.
    static func renew<Holding: Sendable>(
        _ table: LeaseTable,
        ids: [Int64],
        owner: String,
        until expiresAt: Date,
        reading column: String,
        _ db: any SQLConnection,
        _ holding: (StoredRow) throws -> Holding
    ) async throws -> [Int64: LeaseRenewal<Holding>] {
        let list = Placeholders.list(ids.count)
        let expiry = StoredDate.text(expiresAt)
        let rows: SQLArguments = ids.map { $0 }
        var renewals: [Int64: LeaseRenewal<Holding>] = [:]
        switch db.dialect {
        case .sqlite:
            let sql = """
                UPDATE \(table.name) SET \(table.expiry) = ? WHERE \(table.owner) = ? AND id IN (\(list))
                RETURNING id, \(column)
                """
            try await db.forEachRow(sql, [expiry, owner] + rows) { row in renewals[row[0]] = .renewed(try holding(row)) }
        case .postgres:
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
            try await db.forEachRow(sql, [owner] + rows + [expiry, owner] + rows) { row in
                renewals[row[0]] = row[2] as Bool ? .renewed(try holding(row)) : .busy
            }
        }
        return renewals
    }
}

/// A table whose rows hold leases: its name and the columns of a lease's owner and expiry.
struct LeaseTable {
    var name: String
    var owner: String
    var expiry: String

    static let tasks = LeaseTable(name: "tasks", owner: "lease_owner", expiry: "lease_expires_at")
    static let deliveries = LeaseTable(name: "sessions", owner: "delivery_owner", expiry: "delivery_lease_expires_at")
}
