import Foundation
import TransferdDomain

/// Renewals of the leases an instance holds (tasks' transfers, sessions' deliveries), which each database takes its
/// own way (`PostgreSQL/PostgresLeaseRenewals.swift`, `SQLite/SQLiteLeaseRenewals.swift`). A row whose lease `owner`
/// no longer holds is missing from the answer.
protocol LeaseRenewals {
    /// Renews the leases `owner` holds on the tasks `ids` until `expiresAt`, with each renewed task's state.
    func renewTasks(ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<TaskState>]
    /// Renews the delivery leases `owner` holds on the sessions `ids` until `expiresAt`.
    func renewDeliveries(sessionIDs ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<Void>]
}
