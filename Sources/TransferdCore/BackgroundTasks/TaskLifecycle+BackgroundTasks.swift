import Foundation
import GRDB

extension TaskLifecycle {
    /// beginBackgroundTask: grants the duration asked, at most `cap` seconds, from now.
    func beginBackgroundTask(
        sessionID: Int64,
        name: String,
        duration: Double,
        expirationWarning: Double,
        cap: Double
    ) async throws
        -> BackgroundTask
    {
        let task = try await database.pool.write { db in
            guard let session = try Session.fetchOne(db, key: sessionID), session.state == .active else {
                throw Problem.conflict("The session is not active and takes no background tasks.")
            }
            let granted = min(duration, cap)
            let now = Date()
            var task = BackgroundTask(
                publicId: UUID().uuidString.lowercased(),
                sessionId: sessionID,
                name: name,
                state: .active,
                grantedDuration: granted,
                expirationWarning: min(expirationWarning, granted),
                expiresAt: now.addingTimeInterval(granted),
                warned: false,
                createdAt: now
            )
            try task.insert(db)
            return task
        }
        backgroundClock.ring()
        return task
    }

    /// The session's background task with this id, or a 404 problem.
    func backgroundTask(_ publicID: String, sessionID: Int64) async throws -> BackgroundTask {
        let task = try await database.pool.read { db in
            try BackgroundTask.filter(Column("public_id") == publicID && Column("session_id") == sessionID).fetchOne(db)
        }
        guard let task else { throw Problem.notFound("Background task `\(publicID)` does not exist in this session.") }
        return task
    }

    /// endBackgroundTask: stops the clock; its transfers go on as ordinary tasks, or are cancelled.
    func endBackgroundTask(_ publicID: String, sessionID: Int64, cancelTasks: Bool) async throws -> BackgroundTask {
        let (task, interrupted) = try await database.pool.write { db in
            guard var task = try BackgroundTask.filter(Column("public_id") == publicID && Column("session_id") == sessionID).fetchOne(db)
            else {
                throw Problem.notFound("Background task `\(publicID)` does not exist in this session.")
            }
            guard task.state == .active else { throw Problem.conflict("Background task `\(publicID)` is \(task.state.rawValue) already.") }
            task.state = .ended
            task.endedAt = Date()
            try task.update(db)
            let interrupted = cancelTasks ? try cancel(try unfinishedTransfers(of: publicID, db), db) : []
            return (task, interrupted)
        }
        for taskID in interrupted { transfers[taskID]?.interrupt(.byClient) }
        return task
    }

    /// Writes `background_task.expiring` where the warning is due and expires what passed its deadline: its
    /// unfinished transfers complete at once with `backgroundTaskExpired` (with resume data from their last
    /// checkpoint where they can be continued), and their transfers are stopped.
    /// Returns how long until the next warning or deadline.
    func processBackgroundDeadlines(now: Date = Date()) async throws -> Duration? {
        let (interrupted, next) = try await database.pool.write { db in
            var interrupted: [Int64] = []
            var next: Date?
            for var task in try BackgroundTask.filter(Column("state") == BackgroundTask.State.active.rawValue).fetchAll(db) {
                let warningAt = task.expiresAt.addingTimeInterval(-task.expirationWarning)
                if !task.warned, warningAt <= now {
                    task.warned = true
                    try task.update(db)
                    try eventLog.append(
                        db,
                        sessionID: task.sessionId,
                        type: .backgroundTaskExpiring,
                        data: EventData(backgroundTask: task, at: now)
                    )
                }
                if task.expiresAt <= now {
                    task.state = .expired
                    task.endedAt = now
                    try task.update(db)
                    interrupted += try cancel(
                        try unfinishedTransfers(of: task.publicId, db),
                        cancellation: .backgroundTaskExpired,
                        produceResumeData: true,
                        atOnce: true,
                        db
                    )
                    try eventLog.append(
                        db,
                        sessionID: task.sessionId,
                        type: .backgroundTaskExpired,
                        data: EventData(backgroundTask: task, at: now)
                    )
                } else {
                    let due = task.warned ? task.expiresAt : warningAt
                    next = min(next ?? due, due)
                }
            }
            return (interrupted, next)
        }
        for taskID in interrupted { transfers[taskID]?.interrupt(.byClient) }
        return next.map { .milliseconds(Int64($0.timeIntervalSince(now) * 1000) + 1) }
    }

    /// A bound transfer completed: the background task completes itself once none is left unfinished.
    func settleBackgroundTask(_ publicID: String, _ db: Database) throws {
        guard var task = try BackgroundTask.filter(Column("public_id") == publicID).fetchOne(db), task.state == .active,
            try unfinishedTransfers(of: publicID, db).isEmpty
        else { return }
        task.state = .completed
        task.endedAt = Date()
        try task.update(db)
        try eventLog.append(
            db,
            sessionID: task.sessionId,
            type: .backgroundTaskCompleted,
            data: EventData(backgroundTask: task, at: Date())
        )
    }

    /// The transfers of a background task, in task identifier order.
    func transfers(of publicID: String, _ db: Database) throws -> [TransferTask] {
        try TransferTask.filter(Column("background_task") == publicID).order(TransferTask.Columns.taskIdentifier).fetchAll(db)
    }

    private func unfinishedTransfers(of publicID: String, _ db: Database) throws -> [TransferTask] {
        try transfers(of: publicID, db).filter { $0.state != .completed }
    }
}
