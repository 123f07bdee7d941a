import Foundation
import TransferdDomain

/// The statements that take, renew and release the leases an instance holds (tasks' transfers, sessions'
/// deliveries), which each database sends its own way (`PostgreSQL/PostgresLeases.swift`, `SQLite/SQLiteLeases.swift`).
/// A renewal's answer is missing the rows whose lease `owner` no longer holds.
protocol Leases {
    /// Renews the leases `owner` holds on the tasks `ids` until `expiresAt`, with each renewed task's state.
    func renewTasks(ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<TaskState>]
    /// Leases the session's deliveries to `owner` until `expiresAt`, unless another owner's lease is live at `now`;
    /// whether it did.
    func leaseDeliveries(sessionID: Int64, owner: String, until expiresAt: Date, at now: Date) async throws -> Bool
    /// Renews the delivery leases `owner` holds on the sessions `ids` until `expiresAt`.
    func renewDeliveries(sessionIDs ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<Void>]
    /// Ends `owner`'s lease on the session's deliveries, if it holds it.
    func releaseDeliveries(sessionID: Int64, owner: String) async throws
}
