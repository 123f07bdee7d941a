import Synchronization

/// A claim's turn on PostgreSQL: the schema's claim lock, a session-level advisory lock that the claim's connection
/// takes before it reads the queue, and that the claim's lease lets go of once it has committed (`lease_claimed`,
/// migration 18). A claim runs without a transaction, each statement committing on its own: its reads see every
/// lease committed before the lock was granted, and its lease is its one write.
package final class ClaimTurn: Sendable {
    private let held = Mutex(true)

    /// Takes the claim lock of the current schema, waiting for the claim that holds it.
    static let take = "SELECT pg_advisory_lock(7302, hashtext(current_schema()))"
    /// Lets go of the lock, for a claim that leased nothing.
    static let give = "SELECT pg_advisory_unlock(7302, hashtext(current_schema()))"
    /// Leases the claimed tasks, commits, then lets go of the lock: arguments the ids (`{1,2}`), the owner, the
    /// lease's expiry and the start time.
    static let lease = "CALL lease_claimed(CAST(? AS bigint[]), ?, ?, ?)"

    /// Whether the lock is still held: until the lease has let go of it.
    package var isHeld: Bool { held.withLock { $0 } }

    /// Records that the lease let go of the lock.
    package func leased() {
        held.withLock { $0 = false }
    }
}
