import Foundation
import PostgresNIO
import TransferdDomain

/// Leases on PostgreSQL, each statement a type of its own (postgres-nio prepares it once per connection, by the
/// type's name). A renewal's ids are one `bigint[]`: one plan for any number of leases, where a list of placeholders
/// made a text for each count. A renewal runs beside this instance's writes and must not wait for the rows they hold:
/// it did, while holding the rows it had renewed already, and a write waiting for one of those closed the circle (a
/// deadlock, found after a second). It renews the rows it can lock at once and reports the others as busy.
struct PostgresLeases: Leases {
    let db: PostgresSQLConnection

    func leaseDeliveries(sessionID: Int64, owner: String, until expiresAt: Date, at now: Date) async throws -> Bool {
        let lease = LeaseDeliveries(sessionID: sessionID, owner: owner, expiresAt: StoredDate.text(expiresAt), now: StoredDate.text(now))
        return try await !db.run(lease).isEmpty
    }

    func releaseDeliveries(sessionID: Int64, owner: String) async throws {
        _ = try await db.run(ReleaseDeliveries(sessionID: sessionID, owner: owner))
    }

    func renewTasks(ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<TaskState>] {
        var renewals: [Int64: LeaseRenewal<TaskState>] = [:]
        for (id, state, renewed) in try await db.run(RenewTaskLeases(owner: owner, ids: ids, expiresAt: StoredDate.text(expiresAt))) {
            renewals[id] = renewed ? .renewed(try RowCoding.enumeration(state ?? "", "state")) : .busy
        }
        return renewals
    }

    func renewDeliveries(sessionIDs ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<Void>] {
        var renewals: [Int64: LeaseRenewal<Void>] = [:]
        for (id, _, renewed) in try await db.run(RenewDeliveryLeases(owner: owner, ids: ids, expiresAt: StoredDate.text(expiresAt))) {
            renewals[id] = renewed ? .renewed(()) : .busy
        }
        return renewals
    }
}

/// The leases `owner` holds on the tasks `ids`, renewed until `expiresAt` where the task's row is not locked: each
/// task's id, state, and whether it was renewed.
struct RenewTaskLeases: LeaseRenewalStatement {

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
}

/// The delivery leases `owner` holds on the sessions `ids`, renewed until `expiresAt` where the session's row is not
/// locked: each session's id, no state, and whether it was renewed.
struct RenewDeliveryLeases: LeaseRenewalStatement {

    static let sql = """
        WITH held AS (SELECT id FROM sessions WHERE delivery_owner = $1 AND id = ANY($2)),
        renewed AS (
            UPDATE sessions SET delivery_lease_expires_at = $3
            WHERE id IN (SELECT id FROM sessions WHERE delivery_owner = $1 AND id = ANY($2) FOR NO KEY UPDATE SKIP LOCKED)
            RETURNING id
        )
        SELECT held.id, CAST(NULL AS text), renewed.id IS NOT NULL FROM held LEFT JOIN renewed ON renewed.id = held.id
        """
    let owner: String
    let ids: [Int64]
    let expiresAt: String
}

/// The session's deliveries leased to `owner` until `expiresAt`, unless another owner's lease is live at `now`: the
/// session's id when it was.
struct LeaseDeliveries: PostgresPreparedStatement {
    typealias Row = Int64

    static let sql = """
        UPDATE sessions SET delivery_owner = $2, delivery_lease_expires_at = $3
        WHERE id = $1 AND (delivery_owner IS NULL OR delivery_owner = $2 OR delivery_lease_expires_at <= $4)
        RETURNING id
        """
    static let bindingDataTypes: [PostgresDataType] = [.int8, .text, .text, .text]

    let sessionID: Int64
    let owner: String
    let expiresAt: String
    let now: String

    func makeBindings() -> PostgresBindings {
        PostgresBindings(sessionID, owner, expiresAt, now)
    }
}

/// `owner`'s lease on the session's deliveries, ended if it holds it: the session's id when it did.
struct ReleaseDeliveries: PostgresPreparedStatement {
    typealias Row = Int64

    static let sql = """
        UPDATE sessions SET delivery_owner = NULL, delivery_lease_expires_at = NULL WHERE id = $1 AND delivery_owner = $2
        RETURNING id
        """
    static let bindingDataTypes: [PostgresDataType] = [.int8, .text]

    let sessionID: Int64
    let owner: String

    func makeBindings() -> PostgresBindings {
        PostgresBindings(sessionID, owner)
    }
}

/// A renewal's statement: its arguments are the owner (`$1`), the rows' ids (`$2`) and the new expiry (`$3`); each
/// row it answers is a held row's id, what the row holds (a task's state), and whether its lease was renewed.
protocol LeaseRenewalStatement: PostgresPreparedStatement where Row == (Int64, String?, Bool) {
    var owner: String { get }
    var ids: [Int64] { get }
    var expiresAt: String { get }
}

extension LeaseRenewalStatement {
    static var bindingDataTypes: [PostgresDataType] { [.text, .int8Array, .text] }

    func makeBindings() -> PostgresBindings {
        PostgresBindings(owner, ids, expiresAt)
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}
