import Synchronization
import TransferdDomain

/// The registry of transfers under way, shared by the scheduler (which adds and removes them inside its database
/// transactions) and the task service (which asks whether a task is transferring, and interrupts it). It also keeps
/// how many transfers every instance sharing the database runs per session and origin, as the last claim saw it.
package final class ActiveTransfers: Sendable {
    private let transfers = Mutex<[Int64: ActiveTransfer]>([:])
    private let everywhere = Mutex<[HostQueue: Int]>([:])

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

    /// How many workers each tenant holds here: its transfers under way, not those whose ends are being recorded.
    package var workersByTenant: [Int64: Int] {
        transfers.withLock { transfers in
            transfers.values.reduce(into: [:]) { counts, transfer in
                if transfer.isUnderWay { counts[transfer.tenantID, default: 0] += 1 }
            }
        }
    }

    /// The tasks whose transfers here have ended and whose ends are being recorded (their leases not yet ended).
    package var endingTaskIDs: [Int64] {
        transfers.withLock { $0.values.filter { !$0.isUnderWay }.map(\.taskID) }
    }

    /// Records the transfers under way on every instance, by session and origin, that a claim read.
    package func sawUnderway(_ counts: [HostQueue: Int]) {
        everywhere.withLock { $0 = counts }
    }

    /// How many of the session's transfers to the origin are under way: here, or on any instance as the last claim
    /// saw it.
    package func count(_ queue: HostQueue) -> Int {
        max(transfers.withLock { $0.values.count { $0.queue == queue && $0.isUnderWay } }, everywhere.withLock { $0[queue, default: 0] })
    }
}
