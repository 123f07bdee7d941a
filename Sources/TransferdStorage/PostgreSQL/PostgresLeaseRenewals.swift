import Foundation
import PostgresNIO
import TransferdDomain

/// Renewals of leases on PostgreSQL, where a renewal runs beside this instance's writes and must not wait for the rows
/// they hold: it did, while holding the rows it had renewed already, and a write waiting for one of those closed the
/// circle (a deadlock, found after a second). It renews the rows it can lock at once and reports the others as busy.
///
/// Each is a statement of its own type (postgres-nio prepares it once per connection, by the type's name) whose ids
/// are one `bigint[]`: one plan for any number of leases, where a list of placeholders made a text for each count.
struct PostgresLeaseRenewals: LeaseRenewals {
    let db: PostgresSQLConnection

    func renewTasks(ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<TaskState>] {
        var renewals: [Int64: LeaseRenewal<TaskState>] = [:]
        for (id, state, renewed) in try await db.run(RenewTaskLeases(owner: owner, ids: ids, expiresAt: StoredDate.text(expiresAt))) {
            renewals[id] = renewed ? .renewed(try RowCoding.enumeration(state, "state")) : .busy
        }
        return renewals
    }

    func renewDeliveries(sessionIDs ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<Void>] {
        var renewals: [Int64: LeaseRenewal<Void>] = [:]
        for (id, renewed) in try await db.run(RenewDeliveryLeases(owner: owner, ids: ids, expiresAt: StoredDate.text(expiresAt))) {
            renewals[id] = renewed ? .renewed(()) : .busy
        }
        return renewals
    }
}

/// The leases `owner` holds on the tasks `ids`, renewed until `expiresAt` where the task's row is not locked: each
/// task's id, state, and whether it was renewed.
struct RenewTaskLeases: LeaseRenewalStatement {
    typealias Row = (Int64, String, Bool)

    static let sql = """
        WITH held AS (SELECT id, state FROM tasks WHERE lease_owner = $1 AND id = ANY($2)),
        renewed AS (
            UPDATE tasks SET lease_expires_at = $3
            WHERE id IN (SELECT id FROM tasks WHERE lease_owner = $1 AND id = ANY($2) FOR NO KEY UPDATE SKIP LOCKED)
            RETURNING id, state
        )
        SELECT held.id, COALESCE(renewed.state, held.state), renewed.id IS NOT NULL
        FROM held LEFT JOIN renewed ON renewed.id = held.id
        """
    let owner: String
    let ids: [Int64]
    let expiresAt: String

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}

/// The delivery leases `owner` holds on the sessions `ids`, renewed until `expiresAt` where the session's row is not
/// locked: each session's id, and whether it was renewed.
struct RenewDeliveryLeases: LeaseRenewalStatement {
    typealias Row = (Int64, Bool)

    static let sql = """
        WITH held AS (SELECT id FROM sessions WHERE delivery_owner = $1 AND id = ANY($2)),
        renewed AS (
            UPDATE sessions SET delivery_lease_expires_at = $3
            WHERE id IN (SELECT id FROM sessions WHERE delivery_owner = $1 AND id = ANY($2) FOR NO KEY UPDATE SKIP LOCKED)
            RETURNING id
        )
        SELECT held.id, renewed.id IS NOT NULL FROM held LEFT JOIN renewed ON renewed.id = held.id
        """
    let owner: String
    let ids: [Int64]
    let expiresAt: String

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}

/// A renewal's statement: its arguments are the owner (`$1`), the rows' ids (`$2`) and the new expiry (`$3`).
protocol LeaseRenewalStatement: PostgresPreparedStatement {
    var owner: String { get }
    var ids: [Int64] { get }
    var expiresAt: String { get }
}

extension LeaseRenewalStatement {
    static var bindingDataTypes: [PostgresDataType] { [.text, .int8Array, .text] }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(owner)
        bindings.append(ids)
        bindings.append(expiresAt)
        return bindings
    }
}
