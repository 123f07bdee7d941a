import Synchronization
import TransferdDomain

/// The sessions whose deliveries this instance is sending, at most one delivery in flight each (which is what keeps
/// a session's deliveries in order), their tenants, and until when it can count on each session's delivery lease.
package final class SendingSessions: Sendable {
    private struct Sending {
        let tenant: Int64
        var lease: LeaseStateMachine
    }

    private let sessions = Mutex<[Int64: Sending]>([:])

    package init() {}

    package var all: [Int64] { sessions.withLock { Array($0.keys) } }

    /// How many sessions each tenant is sending.
    package var byTenant: [Int64: Int] {
        sessions.withLock { sessions in sessions.values.reduce(into: [:]) { $0[$1.tenant, default: 0] += 1 } }
    }

    /// The tenant of a session this instance is sending.
    package func tenant(of sessionID: Int64) -> Int64? {
        sessions.withLock { $0[sessionID]?.tenant }
    }

    package func insert(_ sessionID: Int64, tenant: Int64, leaseHeldUntil: ContinuousClock.Instant) {
        sessions.withLock { $0[sessionID] = Sending(tenant: tenant, lease: LeaseStateMachine(heldUntil: leaseHeldUntil)) }
    }

    package func remove(_ sessionID: Int64) {
        _ = sessions.withLock { $0.removeValue(forKey: sessionID) }
    }

    /// A renewal of the session's lease answered (nil: another instance holds it now, and this one sends no more of
    /// its deliveries), counted on until `safeUntil` when renewed.
    package func leaseRenewalAnswered(_ sessionID: Int64, _ renewal: LeaseRenewal<Void>?, safeUntil: ContinuousClock.Instant) {
        sessions.withLock { _ = $0[sessionID]?.lease.renewalAnswered(renewal, safeUntil: safeUntil) }
    }

    /// Whether this instance can still count on the session's lease.
    package func holdsLease(_ sessionID: Int64) -> Bool {
        sessions.withLock { $0[sessionID]?.lease.isHeld(at: .now) ?? false }
    }
}
