import Foundation
import GRDB
import Logging
import ServiceLifecycle

/// Runs queued tasks: at most `concurrency` at once across all sessions and `maximumConnectionsPerHost` per
/// session and host; higher priority first, then creation order, taking turns between sessions so that one
/// session's thousands of tasks cannot starve another's.
///
/// On graceful shutdown it stops every transfer; interrupted tasks stay `running` (queued) and run again on the
/// next start.
struct Scheduler: Service {
    let database: AppDatabase
    let lifecycle: TaskLifecycle
    let downloader: DownloadRunner
    let uploader: UploadRunner
    let transfers: ActiveTransfers
    let wakeup: Doorbell
    let turns = SessionTurns()
    let concurrency: Int
    let maximumDownloadBytes: Int64
    let logger: Logger

    func run() async throws {
        try await lifecycle.recoverAfterRestart()
        // Deadlines that passed while the service was down take effect before anything of their sessions runs.
        _ = try await lifecycle.processBackgroundDeadlines()
        await withDiscardingTaskGroup { group in
            await withGracefulShutdownHandler {
                while !Task.isShuttingDownGracefully, !Task.isCancelled {
                    var nextDue: Duration?
                    do {
                        let (claimed, wait) = try await claimJobs()
                        for (job, transfer) in claimed {
                            group.addTask { await perform(job, transfer: transfer) }
                        }
                        nextDue = wait
                    } catch {
                        logger.error("could not claim queued tasks", metadata: ["error": "\(error)"])
                        nextDue = .seconds(1)
                    }
                    await wakeup.wait(timeout: nextDue)
                }
            } onGracefulShutdown: {
                wakeup.ring()
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
        do {
            try await lifecycle.transferEnded(taskID: job.taskID, outcome: outcome, bytes: transfer.counters.received)
        } catch {
            transfers.remove(taskID: job.taskID)
            logger.error("could not record the end of a transfer", metadata: ["task": "\(job.taskID)", "error": "\(error)"])
        }
        wakeup.ring()
    }

    /// Picks the next tasks to run and registers them as transferring, in one write transaction so that a
    /// concurrent suspend or cancel sees either the queued task or the transferring one, never something between.
    ///
    /// Each session's queue per origin is ranked by its active background tasks' transfers first, then priority,
    /// then age; candidates are taken rank by rank, and within a rank the session served longest ago goes first. Tasks not due yet (`nextAttemptAt`) wait; the
    /// second result is how long until the first of them is.
    private func claimJobs() async throws -> ([(TransferJob, ActiveTransfer)], Duration?) {
        try await database.pool.write { db in
            let now = Date()
            let nextDue = try Date.fetchOne(
                db,
                sql: "SELECT MIN(next_attempt_at) FROM tasks WHERE state = 'running' AND next_attempt_at > ?",
                arguments: [now]
            )
            let wait = nextDue.map { Duration.milliseconds(Int64($0.timeIntervalSince(now) * 1000) + 1) }
            let active = transfers.all
            var free = concurrency - active.count
            guard free > 0 else { return ([], wait) }
            var perOrigin: [String: Int] = [:]
            for transfer in active { perOrigin["\(transfer.sessionID) \(transfer.origin)", default: 0] += 1 }

            let activeIDs = active.map(\.taskID).sqliteJSONArray
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM (
                        SELECT t.*, s.configuration AS session_configuration, b.id IS NOT NULL AS boosted,
                               ROW_NUMBER() OVER (
                                   PARTITION BY t.session_id, t.origin ORDER BY b.id IS NOT NULL DESC, t.priority DESC, t.id
                               ) AS turn
                        FROM tasks t JOIN sessions s ON s.id = t.session_id
                        LEFT JOIN background_tasks b ON b.public_id = t.background_task AND b.state = 'active'
                        WHERE t.state = 'running' AND t.id NOT IN (SELECT value FROM json_each(?))
                          AND (t.next_attempt_at IS NULL OR t.next_attempt_at <= ?)
                    ) WHERE turn <= ?
                    """,
                arguments: [activeIDs, now, free]
            )
            let candidates = try rows.map(Candidate.init).sorted { lhs, rhs in
                lhs.order(lastServed: turns.lastServed(lhs.task.sessionId)) < rhs.order(lastServed: turns.lastServed(rhs.task.sessionId))
            }
            var claimed: [(TransferJob, ActiveTransfer)] = []
            for candidate in candidates where free > 0 {
                let task = candidate.task
                let configuration = try JSONDecoder().decode(SessionConfiguration.self, from: Data(candidate.configuration.utf8))
                let slot = "\(task.sessionId) \(task.origin)"
                guard perOrigin[slot, default: 0] < configuration.maximumConnectionsPerHost else { continue }
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
                let upload = task.kind == .upload ? try UploadJob(task: task, files: uploader.files, db) : nil
                claimed.append(
                    (
                        TransferJob(task: task, configuration: configuration, upload: upload, maximumDownloadBytes: maximumDownloadBytes),
                        transfer
                    )
                )
            }
            return (claimed, wait)
        }
    }
}

/// A queued task the scheduler may claim, with its rank in its session's queue for its origin.
private struct Candidate {
    let turn: Int
    /// Whether it belongs to an active background task, which runs ahead of the session's other tasks.
    let boosted: Bool
    let task: TransferTask
    let configuration: String

    init(row: Row) throws {
        turn = row["turn"]
        boosted = row["boosted"]
        task = try TransferTask(row: row)
        configuration = row["session_configuration"]
    }

    /// Rank by rank; within a rank background tasks first, then the session served longest ago, then priority and age.
    func order(lastServed: UInt64) -> (Int, Int, UInt64, Double, Int64) {
        (turn, boosted ? 0 : 1, lastServed, -task.priority, task.rowID)
    }
}
