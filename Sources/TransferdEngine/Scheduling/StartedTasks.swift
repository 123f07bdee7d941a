import Synchronization
import TransferdDomain

/// Tasks that the statement creating them leased to this instance (``TaskCreation/Start``), handed to the scheduler to
/// run without a claim, and the workers kept for them meanwhile. A creation keeps workers (``keep(_:for:shares:)``)
/// only while the scheduler runs and no claim of its is under way; a claim counts the workers kept as held, so that no
/// more than the scheduler's `concurrency` transfers run, each tenant within its share.
package final class StartedTasks: Sendable {
    /// A task leased by its creation: as its lease left it, with its session's configuration and tenant.
    package struct Started: Sendable {
        package let row: TaskEnding.Basis
        package let configuration: SessionConfiguration
        package let tenantID: Int64
        /// When the lease was asked for, on this instance's monotonic clock.
        package let leasedAt: ContinuousClock.Instant

        package init(row: TaskEnding.Basis, configuration: SessionConfiguration, tenantID: Int64, leasedAt: ContinuousClock.Instant) {
            (self.row, self.configuration, self.tenantID, self.leasedAt) = (row, configuration, tenantID, leasedAt)
        }
    }

    private struct State {
        var running = false
        var claiming = false
        /// Workers kept, by tenant: for creations under way, and for tasks handed over and not yet registered.
        var kept: [Int64: Int] = [:]
        var handed: [Started] = []
    }

    private let state = Mutex(State())
    private let transfers: ActiveTransfers
    private let concurrency: Int
    private let perTenant: Int?
    private let doorbell: Doorbell

    /// Tasks started for a scheduler of `concurrency` workers (`perTenant` each while tenants share them), whose
    /// loop `doorbell` wakes.
    package init(transfers: ActiveTransfers, concurrency: Int, perTenant: Int?, doorbell: Doorbell) {
        (self.transfers, self.concurrency, self.perTenant, self.doorbell) = (transfers, concurrency, perTenant, doorbell)
    }

    /// Keeps `count` workers for new tasks of `tenant`, when the scheduler runs, no claim of its is under way, and
    /// the free workers allow them, the tenant within its share (`shares`, the tenants' own) while another tenant
    /// holds some; whether it kept them.
    package func keep(_ count: Int, for tenant: Int64, shares: [Int64: Int]) -> Bool {
        state.withLock { state in
            guard state.running, !state.claiming else { return false }
            let holding = transfers.workersByTenant.merging(state.kept, uniquingKeysWith: +)
            let share = FairShare(capacity: concurrency, perTenant: perTenant, shares: shares)
            guard share.pick(Array(repeating: (tenant: tenant, item: ()), count: count), holding: holding).count == count else {
                return false
            }
            state.kept[tenant, default: 0] += count
            return true
        }
    }

    /// Gives back `count` workers kept for tasks of `tenant` that did not start here.
    package func giveBack(_ count: Int, of tenant: Int64) {
        state.withLock { $0.kept[tenant, default: 0] -= count }
        doorbell.ring()
    }

    /// Hands over tasks their creation leased to this instance, with the workers kept for them, and wakes the
    /// scheduler.
    package func hand(_ started: [Started]) {
        state.withLock { $0.handed += started }
        doorbell.ring()
    }

    /// The scheduler runs from now on (its leases of a previous run taken back), or no longer.
    func running(_ running: Bool) {
        state.withLock { $0.running = running }
    }

    /// A claim begins: no creation keeps workers until it ends. Returns the workers kept, by tenant, which the claim
    /// counts as held.
    func claimBegins() -> [Int64: Int] {
        state.withLock { state in
            state.claiming = true
            return state.kept
        }
    }

    func claimEnded() {
        state.withLock { $0.claiming = false }
    }

    /// The tasks handed over since the last call.
    func take() -> [Started] {
        state.withLock { state in
            defer { state.handed = [] }
            return state.handed
        }
    }

    /// Tasks handed over are registered as transfers: their workers are no longer kept.
    func registered(_ started: [Started]) {
        state.withLock { state in
            for task in started { state.kept[task.tenantID, default: 0] -= 1 }
        }
    }
}
