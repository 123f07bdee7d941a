import Synchronization

/// The sessions whose deliveries this instance is sending, at most one delivery in flight each (which is what keeps
/// a session's deliveries in order), and until when it can count on each session's delivery lease.
package final class SendingSessions: Sendable {
    private let sessions = Mutex<[Int64: ContinuousClock.Instant]>([:])

    package init() {}

    package var all: [Int64] { sessions.withLock { Array($0.keys) } }

    package func insert(_ sessionID: Int64, leaseHeldUntil: ContinuousClock.Instant) {
        sessions.withLock { $0[sessionID] = leaseHeldUntil }
    }

    package func remove(_ sessionID: Int64) {
        _ = sessions.withLock { $0.removeValue(forKey: sessionID) }
    }

    /// The leases of these sessions were renewed: this instance can count on them until `instant`.
    package func leasesRenewed(_ sessionIDs: some Sequence<Int64>, until instant: ContinuousClock.Instant) {
        sessions.withLock { sessions in
            for id in sessionIDs where sessions[id] != nil { sessions[id] = max(sessions[id] ?? instant, instant) }
        }
    }

    /// Another instance holds the session's lease now: this one sends no more of its deliveries.
    package func leaseLost(_ sessionID: Int64) {
        sessions.withLock { sessions in
            if sessions[sessionID] != nil { sessions[sessionID] = .now }
        }
    }

    /// Whether this instance can still count on the session's lease.
    package func holdsLease(_ sessionID: Int64) -> Bool {
        sessions.withLock { $0[sessionID].map { ContinuousClock.now < $0 } ?? false }
    }
}
