import Foundation
import Logging
import ServiceLifecycle
import TransferdDomain
import TransferdStorage

/// Runs queued tasks: at most `concurrency` at once across all sessions and `maximumConnectionsPerHost` per
/// session and host; higher priority first, then creation order, taking turns between sessions so that one
/// session's thousands of tasks cannot starve another's.
///
/// The scheduler is the only owner of the transfers under way (`transfers`); what they do reaches the rest of
/// the service through the `TransferReporter`. On graceful shutdown it stops every transfer; interrupted tasks stay
/// `running` (queued) and run again on the next start.
package struct Scheduler: Service {
    package let store: any Store
    package let reporter: any TransferReporter
    package let downloader: DownloadRunner
    package let uploader: UploadRunner
    package let transfers: ActiveTransfers
    package let loop: WakeUpLoop
    package let turns = SessionTurns()
    package let concurrency: Int
    package let maximumDownloadBytes: Int64
    package let logger: Logger

    package init(
        store: any Store,
        reporter: any TransferReporter,
        downloader: DownloadRunner,
        uploader: UploadRunner,
        transfers: ActiveTransfers,
        loop: WakeUpLoop,
        concurrency: Int,
        maximumDownloadBytes: Int64,
        logger: Logger
    ) {
        self.store = store
        self.reporter = reporter
        self.downloader = downloader
        self.uploader = uploader
        self.transfers = transfers
        self.loop = loop
        self.concurrency = concurrency
        self.maximumDownloadBytes = maximumDownloadBytes
        self.logger = logger
    }

    package func run() async throws {
        try await reporter.prepareQueue()
        await withDiscardingTaskGroup { group in
            await loop.run("claim queued tasks") {
                let (claimed, nextDue) = try await claimJobs()
                for (job, transfer) in claimed {
                    group.addTask { await perform(job, transfer: transfer) }
                }
                return nextDue
            }
            // Interrupted transfers leave their tasks running (queued) for the next start.
            group.cancelAll()
        }
    }

    private func perform(_ job: TransferJob, transfer: ActiveTransfer) async {
        let outcome =
            if let upload = job.upload {
                await uploader.run(job, upload: upload, transfer: transfer)
            } else {
                await downloader.run(job, transfer: transfer)
            }
        let transfers = self.transfers
        do {
            try await reporter.transferEnded(taskID: job.taskID, outcome: outcome, bytes: transfer.counters.received) {
                transfers.remove(taskID: job.taskID)
            }
        } catch {
            transfers.remove(taskID: job.taskID)
            logger.error("could not record the end of a transfer", metadata: ["task": "\(job.taskID)", "error": "\(error)"])
        }
        loop.doorbell.ring()
    }

    /// Picks the next tasks to run and registers them as transferring, in one write transaction so that a
    /// concurrent suspend or cancel sees either the queued task or the transferring one, never something between.
    ///
    /// Each session's queue per origin is ranked by its active background tasks' transfers first, then priority,
    /// then age; candidates are taken rank by rank, and within a rank the session served longest ago goes first.
    /// Tasks not due yet (`nextAttemptAt`) wait; the second result is when the first of them is due.
    private func claimJobs() async throws -> ([(TransferJob, ActiveTransfer)], Date?) {
        let now = loop.clock.now
        let (transfers, turns, concurrency, files, maximumDownloadBytes) = (
            transfers, turns, concurrency, uploader.environment.files, maximumDownloadBytes
        )
        return try await store.write { repositories in
            let nextDue = try repositories.tasks.nextAttemptDate(after: now)
            let active = transfers.all
            var free = concurrency - active.count
            guard free > 0 else { return ([], nextDue) }
            var perOrigin: [String: Int] = [:]
            for transfer in active { perOrigin["\(transfer.sessionID) \(transfer.origin)", default: 0] += 1 }

            let candidates = try repositories.tasks.queueHeads(excluding: active.map(\.taskID), dueAt: now, depth: free).sorted {
                lhs,
                rhs in
                lhs.order(lastServed: turns.lastServed(lhs.task.sessionId)) < rhs.order(lastServed: turns.lastServed(rhs.task.sessionId))
            }
            var claimed: [(TransferJob, ActiveTransfer)] = []
            for candidate in candidates where free > 0 {
                let task = candidate.task
                let slot = "\(task.sessionId) \(task.origin)"
                guard perOrigin[slot, default: 0] < candidate.configuration.maximumConnectionsPerHost else { continue }
                perOrigin[slot, default: 0] += 1
                free -= 1
                turns.served(task.sessionId)
                let transfer = ActiveTransfer(
                    taskID: task.rowID,
                    sessionID: task.sessionId,
                    origin: task.origin,
                    maxBytesPerSecond: task.maxBytesPerSecond
                )
                transfers.add(transfer)
                try repositories.tasks.markStarted(id: task.rowID, at: now)
                let upload = task.kind == .upload ? try UploadJob(task: task, files: files, repositories) : nil
                let job = TransferJob(
                    task: task,
                    configuration: candidate.configuration,
                    upload: upload,
                    maximumDownloadBytes: maximumDownloadBytes
                )
                claimed.append((job, transfer))
            }
            return (claimed, nextDue)
        }
    }
}

extension QueuedTask {
    /// Rank by rank; within a rank background tasks first, then the session served longest ago, then priority and age.
    fileprivate func order(lastServed: UInt64) -> (Int, Int, UInt64, Double, Int64) {
        (turn, boosted ? 0 : 1, lastServed, -task.priority, task.rowID)
    }
}
