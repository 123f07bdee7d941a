/// What renewing one lease found.
///
/// A lease that is no longer the renewer's has no renewal at all: its row is missing from the answer.
package enum LeaseRenewal<Holding: Sendable>: Sendable {
    /// Renewed; `Holding` is what the holder must learn with it (a task's state, for instance).
    case renewed(Holding)
    /// Still the renewer's, but not renewed this time: a write in progress holds the row, and a renewal waits for
    /// none (waiting is how it deadlocked with the writes of the tasks it renews). The next renewal tries again.
    case busy
}

extension LeaseRenewal: Equatable where Holding: Equatable {}
