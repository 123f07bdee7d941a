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

    /// Unregisters the transfer, unless another transfer of its task has been registered since.
    package func remove(_ transfer: ActiveTransfer) {
        transfers.withLock { transfers in
            if transfers[transfer.taskID] === transfer { transfers[transfer.taskID] = nil }
        }
    }

    /// Whether `transfer` is still the one registered for its task: a stopped attempt's late reports are not.
    package func runs(_ transfer: ActiveTransfer) -> Bool {
        transfers.withLock { $0[transfer.taskID] === transfer }
    }

    package subscript(taskID: Int64) -> ActiveTransfer? {
        transfers.withLock { $0[taskID] }
    }

    package var all: [ActiveTransfer] {
        transfers.withLock { Array($0.values) }
    }

    /// How many of the session's transfers to the origin are under way here.
    package func count(_ queue: HostQueue) -> Int {
        transfers.withLock { $0.values.count { $0.queue == queue } }
    }
}
