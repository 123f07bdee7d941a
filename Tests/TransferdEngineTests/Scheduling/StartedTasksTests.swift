import Foundation
import Testing
import TransferdDomain
import TransferdTestSupport

@testable import TransferdEngine

/// Workers kept for tasks that their creations start (`StartedTasks`): only while the scheduler runs and no claim of
/// its picks, never past the scheduler's workers, each tenant within its share while another holds some; given back
/// or taken by the transfers once registered.
@Suite struct StartedTasksTests {
    @Test func workersAreKeptOnlyWhileTheSchedulerRunsAndNoClaimPicks() {
        let (started, _) = Self.started(concurrency: 4)
        #expect(!started.keep(1, for: 1, shares: [:]), "before the scheduler runs")
        started.running(true)
        let kept = started.claimBegins()
        #expect(kept.isEmpty)
        #expect(!started.keep(1, for: 1, shares: [:]), "while a claim picks")
        started.claimEnded()
        #expect(started.keep(1, for: 1, shares: [:]))
        #expect(started.claimBegins() == [1: 1], "a claim counts them as held")
        started.claimEnded()
        started.running(false)
        #expect(!started.keep(1, for: 1, shares: [:]), "once the scheduler stopped")
    }

    /// As a claim picks (`FairShare`): a tenant may go past its share while no other tenant's work waits.
    @Test func workersAreKeptWithinTheSchedulersWorkers() {
        let (started, transfers) = Self.started(concurrency: 4)
        started.running(true)
        transfers.add(Self.transfer(1, tenant: 2))

        // 3 free workers
        #expect(!started.keep(4, for: 1, shares: [:]))
        #expect(started.keep(3, for: 1, shares: [:]))
        #expect(!started.keep(1, for: 2, shares: [:]), "every worker held or kept")

        // act: tenant 1's creation did not start; tenant 2's task is handed over and registered
        started.giveBack(3, of: 1)
        #expect(started.keep(1, for: 2, shares: [:]))
        let handed = Self.handed(2, tenant: 2)
        started.hand([handed])
        #expect(started.take().map(\.row.task.rowID) == [2])
        transfers.add(Self.transfer(2, tenant: 2))
        started.registered([handed])

        // verify: what was given back and what the transfer took over is free to keep again
        #expect(started.claimBegins().values.reduce(0, +) == 0)
        started.claimEnded()
        #expect(started.keep(2, for: 1, shares: [:]))
        #expect(!started.keep(1, for: 1, shares: [:]))
    }

    private static func started(concurrency: Int) -> (StartedTasks, ActiveTransfers) {
        let transfers = ActiveTransfers()
        return (StartedTasks(transfers: transfers, concurrency: concurrency, perTenant: nil, doorbell: Doorbell()), transfers)
    }

    private static func transfer(_ id: Int64, tenant: Int64) -> ActiveTransfer {
        ActiveTransfer(
            taskID: id,
            kind: .download,
            queue: HostQueue(sessionID: 1, origin: "o"),
            tenantID: tenant,
            maxBytesPerSecond: nil,
            leaseHeldUntil: .now + .seconds(60)
        )
    }

    private static func handed(_ id: Int64, tenant: Int64) -> StartedTasks.Started {
        var task = StoredRows.download(Int(id), in: 1, at: Date())
        task.id = id
        return StartedTasks.Started(
            row: TaskEnding.Basis(task: task, revision: "1", session: nil),
            configuration: .default,
            tenantID: tenant,
            leasedAt: .now
        )
    }
}
