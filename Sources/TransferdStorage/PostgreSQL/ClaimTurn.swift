import Synchronization

/// A claim's turn on PostgreSQL: the schema's claim lock, a session-level advisory lock that the claim's read of the
/// queue takes, and that its lease lets go of once it has committed (migrations 18 and 19). A claim runs without a
/// transaction, each statement committing on its own, in two statements: its read sees every lease committed before
/// the lock was granted (it is made again when one committed between its snapshot and the lock), and its lease is
/// its one write.
package final class ClaimTurn: Sendable {
    private enum State {
        case waiting, held, given
    }

    private let state = Mutex(State.waiting)

    /// The columns a read adds to take the turn: the leases committed once the lock was granted, and those its
    /// snapshot holds.
    static let taking = "claim_turn() AS leases_at_turn, (SELECT count FROM claim_leases) AS leases_seen"
    /// Takes the turn, for a claim that leases before it reads.
    static let take = "SELECT claim_turn()"
    /// Lets go of the lock, for a claim that leased nothing.
    static let give = "SELECT pg_advisory_unlock(7302, hashtext(current_schema()))"
    /// Leases the claimed tasks still as read, commits, then lets go of the lock, and answers the leased tasks with
    /// their revisions (`id:revision,…`): arguments the ids (`{1,2}`), their revisions as read (``array(_:)``), the
    /// owner, the lease's expiry and the start time (migration 19).
    static let lease = "CALL lease_read(CAST(? AS bigint[]), CAST(? AS text[]), ?, ?, ?)"

    /// Revisions (`xmin`'s digits) as an array's text, NULL for a row read without one.
    static func array(_ revisions: [String?]) -> String {
        "{" + revisions.map { $0 ?? "NULL" }.joined(separator: ",") + "}"
    }

    /// Whether the next read takes the turn.
    var isWaiting: Bool { state.withLock { $0 == .waiting } }

    /// Whether the lock is held: from the read that took it until the lease.
    var isHeld: Bool { state.withLock { $0 == .held } }

    /// Records that a read took the lock.
    func taken() {
        state.withLock { $0 = .held }
    }

    /// Records that the lease let go of the lock.
    func given() {
        state.withLock { $0 = .given }
    }
}
