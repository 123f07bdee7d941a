import Synchronization
import TransferdDomain

/// The registry of transfers under way, shared by the scheduler (which adds and removes them inside its database
/// transactions) and the task service (which asks whether a task is transferring, and interrupts it).
package final class ActiveTransfers: Sendable {
    private let transfers = Mutex<[Int64: ActiveTransfer]>([:])

    package init() {}

    package func add(_ transfer: ActiveTransfer) {
        transfers.withLock { $0[transfer.taskID] = transfer }
    }

    package func remove(taskID: Int64) {
        _ = transfers.withLock { $0.removeValue(forKey: taskID) }
    }

    package subscript(taskID: Int64) -> ActiveTransfer? {
        transfers.withLock { $0[taskID] }
    }

    package var all: [ActiveTransfer] {
        transfers.withLock { Array($0.values) }
    }

    /// How many of the session's transfers to `origin` are under way.
    package func count(sessionID: Int64, origin: String) -> Int {
        transfers.withLock { $0.values.count { $0.sessionID == sessionID && $0.origin == origin } }
    }
}
