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
            var interrupted: [Int64] = []
            if cancelTasks {
                let unfinished =
                    try TransferTask
                    .filter(TransferTask.Columns.sessionId == sessionID && TransferTask.Columns.state != TaskState.completed.rawValue)
                    .fetchAll(db)
                for var task in unfinished {
                    var machine = TaskStateMachine(state: task.state, isTransferring: transfers[task.rowID] != nil)
                    let action = try machine.handle(.cancel)
                    try perform(action, on: &task, newState: machine.state, db)
                    if action == .stopTransferForCancel { interrupted.append(task.rowID) }
                }
            }
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
