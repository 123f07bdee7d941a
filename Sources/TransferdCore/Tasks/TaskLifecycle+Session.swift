import Foundation
import GRDB

extension TaskLifecycle {
    /// finishTasksAndInvalidate (`cancelTasks: false`) or invalidateAndCancel (`cancelTasks: true`).
    ///
    /// The session stops accepting tasks at once; it becomes `invalidated` when its last task has completed.
    func invalidate(sessionID: Int64, cancelTasks: Bool) async throws -> Session {
        let (session, interrupted) = try await database.pool.write { db in
            guard var session = try Session.fetchOne(db, key: sessionID) else {
                throw Problem.notFound("The session does not exist.")
            }
            guard session.state != .invalidated else {
                throw Problem.conflict("Session \(session.identifier) is already invalidated.")
            }
            session.state = .invalidating
            session.cancelOnInvalidate = session.cancelOnInvalidate || cancelTasks
            try session.update(db, columns: ["state", "cancel_on_invalidate"])
            let unfinished = TransferTask.Columns.sessionId == sessionID && TransferTask.Columns.state != TaskState.completed.rawValue
            let interrupted = cancelTasks ? try cancel(try TransferTask.filter(unfinished).fetchAll(db), db) : []
            try settleSession(sessionID, taskBecameIdle: false, db)
            return (try Session.fetchOne(db, key: sessionID) ?? session, interrupted)
        }
        for taskID in interrupted {
            transfers[taskID]?.interrupt(.byClient)
        }
        return session
    }

    /// Session bookkeeping in the transaction of a task change: `session.events_finished` when the task that became
    /// idle was the session's last queued or running one, and the end of an invalidation when no task is left unfinished.
    /// An invalidated session takes no tasks, so the partial files its resume data pointed to are removed then.
    func settleSession(_ sessionID: Int64, taskBecameIdle: Bool, _ db: Database) throws {
        let busy = try Int.fetchOne(
            db,
            sql: "SELECT COUNT(*) FROM tasks WHERE session_id = ? AND state IN ('running', 'canceling')",
            arguments: [sessionID]
        )
        let unfinished = try Int.fetchOne(
            db,
            sql: "SELECT COUNT(*) FROM tasks WHERE session_id = ? AND state <> 'completed'",
            arguments: [sessionID]
        )
        guard busy == 0, var session = try Session.fetchOne(db, key: sessionID) else { return }
        if taskBecameIdle {
            try eventLog.append(db, sessionID: sessionID, type: .sessionEventsFinished)
        }
        if session.state == .invalidating, unfinished == 0 {
            session.state = .invalidated
            session.invalidatedAt = Date()
            try session.update(db, columns: ["state", "invalidated_at"])
            try discardResumeData(sessionID: sessionID, db)
            try eventLog.append(db, sessionID: sessionID, type: .sessionInvalidated)
        }
    }
}

extension TaskLifecycle {
    /// Cancels unfinished tasks in the caller's transaction; returns the ones whose transfers the caller must
    /// interrupt after the commit. `cancellation` replaces the plain `cancelled` error (an expired background task);
    /// `atOnce` completes transferring tasks now, from their last checkpoint, instead of when their transfer stops.
    func cancel(
        _ tasks: [TransferTask],
        cancellation: TransferError? = nil,
        produceResumeData: Bool = false,
        atOnce: Bool = false,
        _ db: Database
    ) throws -> [Int64] {
        var interrupted: [Int64] = []
        for var task in tasks {
            task.cancellation = cancellation
            task.produceResumeData = task.produceResumeData || produceResumeData
            let transferring = transfers[task.rowID] != nil
            var machine = TaskStateMachine(state: task.state, isTransferring: transferring && !atOnce)
            let action = try machine.handle(.cancel)
            try perform(action, on: &task, newState: machine.state, db)
            if transferring { interrupted.append(task.rowID) }
        }
        return interrupted
    }

    /// Refuses a new task when the session, or its tenant's unfinished work, is at its limit.
    func checkTaskLimits(_ session: Session, _ db: Database) throws {
        let inSession = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tasks WHERE session_id = ?", arguments: [session.rowID]) ?? 0
        guard inSession < limits.maximumTasksPerSession else {
            throw ResourceLimits.exceeded("Session `\(session.identifier)` has \(inSession) tasks, the most a session may have.")
        }
        let unfinished =
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM tasks t JOIN sessions s ON s.id = t.session_id
                    WHERE s.tenant_id = ? AND t.state <> 'completed'
                    """,
                arguments: [session.tenantId]
            ) ?? 0
        guard unfinished < limits.maximumQueuedTasksPerTenant else {
            throw ResourceLimits.exceeded(
                "This tenant has \(unfinished) unfinished tasks, the most it may have queued; wait for some to complete."
            )
        }
    }
}
