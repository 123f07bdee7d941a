import Foundation
import Logging
import ServiceLifecycle
import TransferdDomain
import TransferdStorage

/// Runs queued tasks: at most `concurrency` at once across all sessions and `maximumConnectionsPerHost` per
/// session and host; higher priority first, then creation order, taking turns between sessions so that one
/// session's thousands of tasks cannot starve another's. The workers are shared across tenants first (`FairShare`):
/// while more than one tenant has work, none holds more than `perTenant` (half the workers by default); workers no
/// other tenant waits for may go over it, and are given back once one does (the newest transfers are preempted: their
/// tasks go back to their queues, their checkpoints kept).
///
/// Instances sharing a database claim tasks one claim at a time, each leasing what it claims (`TaskLease`): a task
/// another instance holds is not claimed, and `maximumConnectionsPerHost` counts the transfers of every instance.
/// Tasks whose leases expired (their instance died) are taken back first.
///
/// The scheduler is the only owner of this instance's transfers under way (`transfers`); what they do reaches the
/// rest of the service through the `TransferReporter`. On graceful shutdown it stops every transfer; interrupted
/// tasks stay `running` (queued) and run again on the next start, here or on another instance.
package struct Scheduler: Service {
    package let store: any Store
    package let instance: Instance
    package let reporter: any TransferReporter
    package let downloader: DownloadRunner
    package let uploader: UploadRunner
    package let transfers: ActiveTransfers
    /// Tasks their creations leased to this instance, to run without a claim.
    package let started: StartedTasks
    package let loop: WakeUpLoop
    let turns = SessionTurns()
    /// Whether a wake claims at once, asks first whether anything is claimable, or rests.
    package let cues = ClaimCues()
    /// How often a full instance looks for another tenant's waiting work.
    let busyLooks = BusyLooks(interval: .milliseconds(250))
    package let concurrency: Int
    /// The most workers one tenant holds while another has work; nil for half of them.
    package let perTenant: Int?
    /// Tenants' own shares, where the operator set them.
    package let quotas: TenantQuotas
    package let bounds: TransferBounds
    /// When discretionary sessions' transfers run while other work waits.
    package let discretionaryHours: DiscretionaryHours
    package let logger: Logger

    package init(
        store: any Store,
        instance: Instance,
        reporter: any TransferReporter,
        downloader: DownloadRunner,
        uploader: UploadRunner,
        transfers: ActiveTransfers,
        started: StartedTasks,
        loop: WakeUpLoop,
        concurrency: Int,
        perTenant: Int? = nil,
        quotas: TenantQuotas,
        bounds: TransferBounds,
        discretionaryHours: DiscretionaryHours,
        logger: Logger
    ) {
        self.store = store
        self.instance = instance
        self.reporter = reporter
        self.downloader = downloader
        self.uploader = uploader
        self.transfers = transfers
        self.started = started
        self.loop = loop
        self.concurrency = concurrency
        self.perTenant = perTenant
        self.quotas = quotas
        self.bounds = bounds
        self.discretionaryHours = discretionaryHours
        self.logger = logger
    }

    package func run() async throws {
        try await reporter.prepareQueue()
        started.running(true)
        defer { started.running(false) }
        await withDiscardingTaskGroup { group in
            await loop.run("claim queued tasks") {
                let (claimed, nextDue, leasesExpired) = try await claimJobs()
                for (job, transfer) in claimed {
                    group.addTask { await perform(job, transfer: transfer) }
                }
                guard leasesExpired, try await reporter.takeBackExpiredLeases(at: instance.clock.now) else { return nextDue }
                return loop.clock.now
            }
            // Interrupted transfers leave their tasks running (queued) for the next start.
            group.cancelAll()
        }
    }

    /// Runs the transfer, then records its end; its worker is free for the next claim as soon as the transfer is
    /// over, while its end is written (the claim leaves its task out of the transfers under way). The end's commit
    /// announces what it left (`.work` for a task back in its queue, `.capacity` otherwise), which wakes the loop
    /// again, after the transfer is no longer registered.
    ///
    /// The attempt and its end are one span (``AttemptTrace``): the events the end writes carry its trace on.
    private func perform(_ job: TransferJob, transfer: ActiveTransfer) async {
        await transfer.trace.run(
            job,
            attempt: transfer.attempt,
            sessionID: transfer.queue.sessionID,
            transactions: { transfer.transactions }
        ) {
            let bandwidth = uploader.environment.bandwidth
            transfer.pass(through: bandwidth.join(transfer, sessionSchedule: job.sessionBandwidth))
            let outcome =
                switch job.work {
                case .download(let download): await downloader.run(job, download, transfer: transfer)
                case .upload(let upload): await uploader.run(job, upload, transfer: transfer)
                }
            bandwidth.leave(transfer)
            transfer.beginEnding()
            loop.doorbell.ring()
            logger.debug("a transfer attempt ended", metadata: ["attempt": "\(transfer.attempt)", "outcome": "\(outcome.summary)"])
            await recordEnd(of: job, transfer: transfer, outcome: outcome)
            return outcome
        }
    }

    /// Records how the transfer ended. While the store cannot take it (the database is unreachable for a moment, or
    /// its disk is full) it tries again every second, as long as the lease can be counted on; after that the task is
    /// another instance's to take back, or this one's once its lease has expired: the scheduler looks again then, as
    /// nothing else may wake it (it is not woken by its own leases' expiry, which it renews while it transfers).
    private func recordEnd(of job: TransferJob, transfer: ActiveTransfer, outcome: TaskStateMachine.TransferOutcome) async {
        let transfers = self.transfers
        while true {
            do {
                try await reporter.transferEnded(transfer, outcome: outcome, bytes: transfer.counters.received) {
                    transfers.remove(transfer)
                    transfer.releasePartialFile()
                }
                return
            } catch {
                let metadata: Logger.Metadata = ["task": "\(job.taskID)", "error": "\(error)"]
                guard !Task.isCancelled, transfer.leaseLeft() > .zero else {
                    transfers.remove(transfer)
                    transfer.releasePartialFile()
                    let (doorbell, expiry) = (loop.doorbell, Duration.milliseconds(Int64(instance.leaseTimeout * 1000) + 1000))
                    let cues = cues
                    Task {
                        try? await Task.sleep(for: expiry)
                        cues.workAnnounced()
                        doorbell.ring()
                    }
                    return logger.error("could not record the end of a transfer", metadata: metadata)
                }
                logger.warning("could not record the end of a transfer yet; trying again in a second", metadata: metadata)
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// A task this instance may be transferring changed (`Signal.task`, from any instance): stops the transfer when
    /// the task no longer wants it from this instance, else applies the task's bandwidth limit to it.
    package func reconsider(taskID: Int64) async {
        guard let transfer = transfers[taskID] else { return }
        do {
            let task = try await store.read { try await $0.tasks.find(id: taskID) }
            guard let task, task.state == .running, task.lease?.owner == instance.id else { return transfer.interrupt(.byClient) }
            transfer.limit.setRate(task.maxBytesPerSecond)
        } catch {
            logger.warning(
                "could not read a changed task; its lease renewal will look again",
                metadata: ["task": "\(taskID)", "error": "\(error)"]
            )
        }
    }

    /// Picks the next tasks to run, leases them to this instance and registers them as transferring, in one claim
    /// so that a concurrent suspend or cancel sees either the queued task or the transferring one, never something
    /// between. A wake that announced no work, after a claim or a look that found nothing left, rests until something
    /// falls due (a transfer's end frees a worker, and nothing waits for it: ``ClaimCues``); once it has, it first
    /// asks whether any task is claimable, outside the claim's turn; so does one while every worker is busy, between
    /// the looks it takes for other tenants' work.
    ///
    /// Tasks not due yet (`nextAttemptAt`) wait; the second result is when the first of them is due, or when
    /// another instance's lease expires; the third whether some lease has expired, for the reporter to take back.
    private func claimJobs() async throws -> ([(TransferJob, ActiveTransfer)], Date?, Bool) {
        let handed = startHanded()
        let (claimed, nextDue, leasesExpired) = try await claimQueued()
        return (handed + claimed, nextDue, leasesExpired)
    }

    /// The tasks their creations leased to this instance, registered as transfers.
    private func startHanded() -> [(TransferJob, ActiveTransfer)] {
        let handed = started.take()
        guard !handed.isEmpty else { return [] }
        let jobs = handed.map { started in
            let task = started.row.task
            let transfer = ActiveTransfer(
                of: task,
                tenantID: started.tenantID,
                leaseHeldUntil: started.leasedAt + instance.safeLeaseDuration
            )
            transfer.leased(as: started.row)
            transfers.add(transfer)
            // A creation starts downloads only: an upload's source is read when its task is claimed.
            guard case .download(let download) = task.transfer else { preconditionFailure("a creation started an upload") }
            let work = TransferJob.Work.download(DownloadJob(download, configuration: started.configuration, bounds: bounds))
            return (TransferJob(task: task, configuration: started.configuration, work: work, bounds: bounds), transfer)
        }
        started.registered(handed)
        return jobs
    }

    /// The queued tasks a claim picks.
    private func claimQueued() async throws -> ([(TransferJob, ActiveTransfer)], Date?, Bool) {
        let (now, leaseNow, started) = (loop.clock.now, instance.clock.now, ContinuousClock.now)
        let (owner, ending) = (instance.id, transfers.endingTaskIDs)
        let read: @Sendable (any Repositories) async throws -> QueueOverview = { repositories in
            try await repositories.queue.overview(dueAfter: now, leasesAt: leaseNow, owner: owner, ending: ending)
        }
        // Looked at even when every worker is busy, now and then: another tenant's waiting work may take one back.
        if transfers.workersByTenant.values.reduce(0, +) >= concurrency, let wait = busyLooks.wait(at: started) {
            let overview = try await store.lookup(counted: .claim, read)
            let look = now.addingTimeInterval(wait.timeInterval)
            return ([], min(nextDue(overview) ?? look, look), overview.leasesExpired)
        }
        do {
            switch cues.pass(at: now) {
            case .rest(let until):
                return ([], until, false)
            case .look:
                let overview = try await store.lookup(counted: .claim, read)
                guard overview.anyClaimable else {
                    let due = nextDue(overview)
                    if !overview.leasesExpired { cues.foundNothing(until: due) }
                    return ([], due, overview.leasesExpired)
                }
            case .claim:
                break
            }
            return try await claim(now: now, leaseNow: leaseNow, started: started, ending: ending)
        } catch {
            // Whatever the pass was to claim waits for the next one, which must not rest.
            cues.workAnnounced()
            throw error
        }
    }

    /// When the scheduler looks again: the first queued task's next attempt, or another instance's lease's expiry.
    private func nextDue(_ overview: QueueOverview) -> Date? {
        [overview.nextAttempt, overview.nextForeignLeaseExpiry.map { instance.moment($0, on: loop.clock) }].compactMap { $0 }.min()
    }

    /// The claim itself, in the claim's turn.
    ///
    /// Each session's queue per origin is ranked by its active background tasks' transfers first, then priority,
    /// then age; candidates are taken rank by rank, and within a rank the session served longest ago goes first.
    /// Discretionary sessions' tasks wait while others are queued, until their hours begin (``DiscretionaryHours``).
    private func claim(
        now: Date,
        leaseNow: Date,
        started: ContinuousClock.Instant,
        ending: [Int64]
    ) async throws -> ([(TransferJob, ActiveTransfer)], Date?, Bool) {
        let (transfers, turns, files, bounds, instance, window, cues) = (
            transfers, turns, uploader.environment.files, bounds, instance, discretionaryHours, cues
        )
        let (concurrency, perTenant, quotas) = (concurrency, perTenant, quotas)
        // Workers kept for tasks that creations may start here count as held; none is kept while the claim picks.
        let kept = self.started.claimBegins()
        defer { self.started.claimEnded() }
        return try await store.claim { repositories in
            let share = await FairShare(capacity: concurrency, perTenant: perTenant, shares: try quotas.transferShares(repositories))
            let holding = transfers.workersByTenant.merging(kept, uniquingKeysWith: +)
            let free = share.capacity - holding.values.reduce(0, +)
            let depth = max(free, 1)
            // No queue is read when no task is due and unleased.
            let (overview, heads) = try await repositories.queue.claimable(
                dueAfter: now,
                leasesAt: leaseNow,
                owner: instance.id,
                ending: ending,
                depth: depth
            )
            var nextDue = nextDue(overview)
            let leasesExpired = overview.leasesExpired
            var underway = overview.underway
            var candidates = heads.sorted { lhs, rhs in
                lhs.order(lastServed: turns.lastServed(lhs.task.sessionId)) < rhs.order(lastServed: turns.lastServed(rhs.task.sessionId))
            }
            let othersWait = candidates.contains { !$0.configuration.discretionary }
            if othersWait, !window.contains(now), candidates.contains(where: \.configuration.discretionary) {
                candidates.removeAll(where: \.configuration.discretionary)
                if let opening = window.nextOpening(after: now) { nextDue = min(nextDue ?? opening, opening) }
            }
            var claimed: [(TransferJob, ActiveTransfer)] = []
            // A transfer of it may still be stopping here, its lease given up after it could not be renewed; and its
            // session's transfers to its origin are limited.
            func fits(_ candidate: QueuedTask, _ underway: [HostQueue: Int]) -> Bool {
                let queue = HostQueue(sessionID: candidate.task.sessionId, origin: candidate.task.origin)
                return transfers[candidate.task.rowID] == nil
                    && underway[queue, default: 0] < candidate.configuration.maximumConnectionsPerHost
            }
            let picked = share.pick(candidates.map { (tenant: $0.tenantID, item: $0) }, holding: holding) { candidate in
                guard fits(candidate, underway) else { return false }
                underway[HostQueue(sessionID: candidate.task.sessionId, origin: candidate.task.origin), default: 0] += 1
                turns.served(candidate.task.sessionId)
                return true
            }
            for candidate in picked {
                let task = candidate.task
                let transfer = ActiveTransfer(of: task, tenantID: candidate.tenantID, leaseHeldUntil: started + instance.safeLeaseDuration)
                let work: TransferJob.Work
                switch task.transfer {
                case .download(let download):
                    work = .download(DownloadJob(download, configuration: candidate.configuration, bounds: bounds))
                case .upload(let upload):
                    work = .upload(try await UploadJob(task: task, upload: upload, files: files, repositories))
                }
                claimed.append((TransferJob(task: task, configuration: candidate.configuration, work: work, bounds: bounds), transfer))
            }
            let lease = TaskLease(owner: instance.id, expiresAt: instance.leaseExpiry(from: leaseNow))
            // A task changed since it was read (suspended, cancelled, patched) is not leased: a claim on PostgreSQL
            // holds no row. A leased task's row is the one read, with the lease.
            let read = Dictionary(picked.map { ($0.task.rowID, $0) }, uniquingKeysWith: { first, _ in first })
            let leased = try await repositories.queue.lease(claimed.compactMap { read[$0.1.taskID]?.revision }, lease, startedAt: now)
            let rows = Dictionary(leased.map { ($0.id, $0.revision) }, uniquingKeysWith: { first, _ in first })
            claimed.removeAll { rows[$0.1.taskID] == nil }
            for (_, transfer) in claimed {
                guard let revision = rows[transfer.taskID] ?? nil, var task = read[transfer.taskID]?.task else { continue }
                task.lease = lease
                task.startedAt = task.startedAt ?? now
                transfer.leased(as: TaskEnding.Basis(task: task, revision: revision, session: nil))
            }
            // Registered once the claim has committed: a claim that runs again registers only what it claims.
            for (_, transfer) in claimed { repositories.afterCommit { transfers.add(transfer) } }
            // The queue is left without due work only when every task read was taken, with workers to spare (a queue
            // read to the depth may hold more), and some was readable where any was claimable.
            let drained = claimed.count == heads.count && claimed.count < free && (!heads.isEmpty || !overview.anyClaimable)
            let due = nextDue
            repositories.afterCommit { cues.claimed(leavingWork: !drained || leasesExpired, nextDue: due) }
            // What waits for a worker alone, not for its session's per-host limit: only that may take one back.
            let pickedIDs = Set(picked.map(\.task.rowID))
            var room = underway
            var waiting: [Int64: Int] = [:]
            for candidate in candidates where !pickedIDs.contains(candidate.task.rowID) && fits(candidate, room) {
                room[HostQueue(sessionID: candidate.task.sessionId, origin: candidate.task.origin), default: 0] += 1
                waiting[candidate.tenantID, default: 0] += 1
            }
            let given = share.preemptions(
                holding: transfers.workersByTenant.merging(claimed.map { ($0.1.tenantID, 1) }, uniquingKeysWith: +),
                waiting: waiting
            )
            repositories.afterCommit { Self.preempt(given, among: transfers) }
            let seen = underway
            repositories.afterCommit { transfers.sawUnderway(seen) }
            return (claimed, nextDue, leasesExpired)
        }
    }
}

extension Scheduler {
    /// Stops each tenant's newest transfers, as many as it gives back.
    fileprivate static func preempt(_ given: [Int64: Int], among transfers: ActiveTransfers) {
        for (tenant, count) in given {
            let newest = transfers.all.filter { $0.tenantID == tenant && $0.isPreemptible }.sorted {
                $0.startedAt > $1.startedAt
            }
            for transfer in newest.prefix(count) { transfer.interrupt(.preempted) }
        }
    }
}

extension QueuedTask {
    /// Rank by rank; within a rank background tasks first, then the session served longest ago, then priority and age.
    fileprivate func order(lastServed: UInt64) -> (Int, Int, UInt64, Double, Int64) {
        (turn, boosted ? 0 : 1, lastServed, -task.priority, task.rowID)
    }
}
