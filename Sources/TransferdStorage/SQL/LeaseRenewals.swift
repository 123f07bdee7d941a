import Foundation
import TransferdDomain

/// Renewals of the leases an instance holds in a table's rows (tasks' transfers, sessions' deliveries), which each
/// database takes its own way (`PostgreSQL/PostgresLeaseRenewals.swift`, `SQLite/SQLiteLeaseRenewals.swift`).
protocol LeaseRenewals: Sendable {
    /// Renews the leases `owner` holds in `table`'s rows `ids` until `expiresAt`, with the value of `column` of each
    /// row renewed; a row whose lease `owner` no longer holds is missing from the answer.
    func renew<Holding: Sendable>(
        _ table: LeaseTable,
        ids: [Int64],
        owner: String,
        until expiresAt: Date,
        reading column: String,
        _ db: any SQLConnection,
        _ holding: (StoredRow) throws -> Holding
    ) async throws -> [Int64: LeaseRenewal<Holding>]
}

/// A table whose rows hold leases: its name and the columns of a lease's owner and expiry.
struct LeaseTable {
    var name: String
    var owner: String
    var expiry: String

    static let tasks = LeaseTable(name: "tasks", owner: "lease_owner", expiry: "lease_expires_at")
    static let deliveries = LeaseTable(name: "sessions", owner: "delivery_owner", expiry: "delivery_lease_expires_at")
}
