import Foundation
import GRDB
import Logging

/// Carries out every change of a task's state. The state machine decides; this applies its action in one
/// transaction (the row, the events, the session's bookkeeping), then does what must follow the commit
/// (wake the scheduler, interrupt a transfer).
struct TaskLifecycle: Sendable {
    let database: AppDatabase
    let eventLog: EventLog
    let files: FileStore
    let transfers: ActiveTransfers
    let wakeup: Doorbell
    /// Rings the `BackgroundTaskClock` when a background task begins.
    let backgroundClock: Doorbell
    let retryPolicy: RetryPolicy
    let limits: ResourceLimits
    let resumeDataSigner: ResumeData.Signer
    let logger: Logger

    /// Creates a task in a live session, writing `task.created` (and `task.resumed` when it starts at once).
    func create(_ newTask: NewTask, inSession sessionID: Int64) async throws -> TransferTask {
        let task = try await database.pool.write { db in
            let session = try Session.fetchOne(db, key: sessionID)
            guard let session, session.state == .active else {
                throw Problem.conflict("The session is \(session?.state.rawValue ?? "gone") and accepts no new tasks.")
            }
            try checkTaskLimits(session, db)
            let taskIdentifier = try Int64.fetchOne(
                db,
                sql: "UPDATE sessions SET last_task_identifier = last_task_identifier + 1 WHERE id = ? RETURNING last_task_identifier",
                arguments: [sessionID]
            )!
            var task = TransferTask(
                sessionId: sessionID,
                taskIdentifier: taskIdentifier,
                kind: newTask.kind,
                state: newTask.start ? .running : .suspended,
                taskDescription: newTask.taskDescription,
                priority: newTask.priority,
                originalRequest: newTask.request,
                origin: newTask.origin,
                countOfBytesReceived: 0,
                countOfBytesExpected: -1,
                checksum: newTask.checksum,
                earliestBeginDate: newTask.earliestBeginDate,
                nextAttemptAt: newTask.earliestBeginDate,
                attempts: [],
                createdAt: Date()
            )
            task.connections = newTask.connections
            task.maxBytesPerSecond = newTask.maxBytesPerSecond
            task.maxBytes = newTask.maxBytes
            task.multipart = newTask.multipart
            if let backgroundTask = newTask.backgroundTask {
                let active = Column("public_id") == backgroundTask && Column("session_id") == sessionID && Column("state") == "active"
                guard try BackgroundTask.filter(active).fetchCount(db) == 1 else {
                    throw Problem.conflict("Background task `\(backgroundTask)` is not an active background task of this session.")
                }
                task.backgroundTask = backgroundTask
            }
            if let source = newTask.uploadFrom { try bindUploadSource(source, to: &task, tenantID: session.tenantId, db) }
            if let resumeData = newTask.resumeData {
                try continueDownload(from: resumeData, in: &task, db)
            } else {
                try task.insert(db)
            }
            // Read back, so that the task is shown as it is stored (dates at the database's precision).
            task = try TransferTask.fetchOne(db, key: task.rowID) ?? task
            try eventLog.append(db, .taskCreated, for: task, data: EventData(state: .suspended))
            if newTask.start {
                try eventLog.append(db, .taskResumed, for: task, data: EventData(state: .running))
            }
            return task
        }
        if task.state == .running { wakeup.ring() }
        return task
    }

    /// Applies a client's `resume`, `suspend` or `cancel`; an input the task's state forbids is a 409 problem.
    /// A cancel with `produceResumeData` keeps the partial file and puts a resume data token in the task's error.
    func apply(
        _ input: TaskStateMachine.Input,
        sessionID: Int64,
        taskIdentifier: Int64,
        produceResumeData: Bool = false
    ) async throws -> TransferTask {
        let (task, action) = try await database.pool.write { db in
            guard var task = try TransferTask.fetch(db, sessionID: sessionID, taskIdentifier: taskIdentifier) else {
                throw Problem.notFound("Task \(taskIdentifier) does not exist in this session.")
            }
            if input == .cancel, produceResumeData { task.produceResumeData = true }
            var machine = TaskStateMachine(state: task.state, isTransferring: transfers[task.rowID] != nil)
            let action: TaskStateMachine.Action
            do {
                action = try machine.handle(input)
            } catch {
                throw Problem.conflict("Task \(taskIdentifier) is \(task.state.rawValue); it cannot \(input.name).")
            }
            try perform(action, on: &task, newState: machine.state, db)
            return (task, action)
        }
        afterCommit(action, taskID: task.rowID)
        return task
    }

    /// Changes a task's priority, description or bandwidth limit; a limit applies at once to a transfer under way.
    func update(_ change: TaskChange, sessionID: Int64, taskIdentifier: Int64) async throws -> TransferTask {
        let task = try await database.pool.write { db in
            guard var task = try TransferTask.fetch(db, sessionID: sessionID, taskIdentifier: taskIdentifier) else {
                throw Problem.notFound("Task \(taskIdentifier) does not exist in this session.")
            }
            guard task.state != .completed else { throw Problem.conflict("Task \(taskIdentifier) is completed; it cannot change.") }
            if let priority = change.priority { task.priority = priority }
            if let description = change.taskDescription { task.taskDescription = description }
            if let rate = change.maxBytesPerSecond { task.maxBytesPerSecond = rate }
            try task.update(db)
            return task
        }
        transfers[task.rowID]?.limit.setRate(task.maxBytesPerSecond)
        return task
    }

    /// Records how a transfer attempt ended; called by the scheduler once the runner has stopped. A transient
    /// failure is retried while the session's `maximumRetries` and the task's resource deadline allow.
    func transferEnded(taskID: Int64, outcome: TaskStateMachine.TransferOutcome, bytes: Int64) async throws {
        try await database.pool.write { db in
            // Removing the transfer inside the transaction keeps `isTransferring` consistent for concurrent inputs.
            transfers.remove(taskID: taskID)
            guard var task = try TransferTask.fetchOne(db, key: taskID) else { return }
            var input = TaskStateMachine.Input.transferEnded(outcome)
            if let attempt = TransferAttempt(outcome: outcome, bytes: bytes) {
                task.attempts.append(attempt)
                if case .failed(let error) = outcome, let retryAt = try retryDate(for: error, of: task, db) {
                    input = .transferFailedRetryable(error, at: retryAt)
                }
            }
            var machine = TaskStateMachine(state: task.state, isTransferring: false)
            do {
                let action = try machine.handle(input)
                try perform(action, on: &task, newState: machine.state, db)
            } catch let illegal as TaskStateMachine.IllegalTransition {
                // A task completed while its transfer was stopping (an expired background task): its partial file
                // stays when its resume data points to it.
                logger.debug("transfer ended for a task that was already \(illegal.from)", metadata: ["task": "\(taskID)"])
                if task.error?.resumeData == nil { files.removePartial(taskID: taskID) }
            }
        }
    }

    /// When to try again after `error`, or nil when the task must fail now.
    private func retryDate(for error: TransferError, of task: TransferTask, _ db: Database) throws -> Date? {
        guard error.isTransient, let session = try Session.fetchOne(db, key: task.sessionId) else { return nil }
        let failures = task.attempts.count
        if let maximum = session.configuration.maximumRetries, failures > maximum { return nil }
        let policy = retryPolicy.bounded(by: session.configuration)
        let retryAt = Date().addingTimeInterval(policy.delay(afterFailures: failures, retryAfter: error.retryAfter).timeInterval)
        let deadline = task.createdAt.addingTimeInterval(session.configuration.timeoutIntervalForResource)
        return retryAt < deadline ? retryAt : nil
    }

    /// After a restart nothing is transferring: tasks left `canceling` complete as cancelled; `running` ones stay queued.
    func recoverAfterRestart() async throws {
        try await database.pool.write { db in
            for var task in try TransferTask.filter(TransferTask.Columns.state == TaskState.canceling.rawValue).fetchAll(db) {
                var machine = TaskStateMachine(state: task.state, isTransferring: false)
                let action = try machine.handle(.transferEnded(.interrupted))
                try perform(action, on: &task, newState: machine.state, db)
            }
        }
    }

    /// Writes the task's new state and the events of `action`, then settles the session.
    func perform(_ action: TaskStateMachine.Action, on task: inout TransferTask, newState: TaskState, _ db: Database) throws {
        let wasBusy = task.state.isBusy
        let taskID = task.rowID
        task.state = newState
        switch action {
        case .none:
            return
        case .enqueue:
            // A resumed task runs now (a retry's backoff is over), but not before its earliest begin date.
            task.nextAttemptAt = task.earliestBeginDate
            task.waitingReason = nil
            try task.update(db)
            try eventLog.append(db, .taskResumed, for: task, data: EventData(state: .running))
        case .suspend:
            if let live = transfers[taskID]?.counters {
                (task.countOfBytesReceived, task.countOfBytesExpected) = live
            }
            try task.update(db)
            try eventLog.append(db, .taskSuspended, for: task, data: EventData(state: .suspended))
        case .stopTransferForCancel:
            try task.update(db)
        case .complete(let error, let file):
            try complete(&task, error: error, file: file, db)
        case .scheduleRetry(let at, let error):
            // taskIsWaitingForConnectivity: once when the host becomes unreachable, not on every retry.
            let wasWaitingForConnectivity = task.waitingReason == TaskResponse.WaitingReason.waitingForConnectivity.rawValue
            let reason: TaskResponse.WaitingReason =
                error.isConnectivityFailure ? .waitingForConnectivity : error.code == .outOfSpace ? .outOfSpace : .retryBackoff
            task.nextAttemptAt = at
            task.waitingReason = reason.rawValue
            if task.resumeValidator == nil { discardPartial(of: &task) }
            // The next attempt continues from the checkpoint.
            task.countOfBytesReceived = task.partialBytes
            try task.update(db)
            if reason == .waitingForConnectivity, !wasWaitingForConnectivity {
                try eventLog.append(db, .taskWaitingForConnectivity, for: task)
            }
        }
        if wasBusy && !newState.isBusy {
            try settleSession(task.sessionId, taskBecameIdle: true, db)
        }
    }

    private func complete(_ task: inout TransferTask, error: TransferError?, file: StoredFile?, _ db: Database) throws {
        let taskID = task.rowID
        let error = error?.code == .cancelled ? task.cancellation ?? error : error
        task.error = error
        task.completedAt = Date()
        if let file {
            try files.finalize(taskID: taskID)
            let bytesWritten = file.size - task.countOfBytesReceived
            task.file = file
            task.partialBytes = 0
            task.countOfBytesReceived = file.size
            task.countOfBytesExpected = file.size
            try task.update(db)
            let progress = EventData(bytesWritten: bytesWritten, totalBytesWritten: file.size, totalBytesExpectedToWrite: file.size)
            try eventLog.append(db, .taskProgress, for: task, data: progress)
            let finished = EventData(file: file, location: "tasks/\(task.taskIdentifier)/content")
            try eventLog.append(db, .taskFinishedDownloading, for: task, data: finished)
        } else {
            if let error, let resumeData = resumeData(for: task, after: error) {
                task.error?.resumeData = try resumeDataSigner.token(for: resumeData)
            } else {
                discardPartial(of: &task)
            }
            if task.kind == .upload, error == nil {
                let bytesSent = task.countOfBytesExpectedToSend - task.countOfBytesSent
                task.countOfBytesSent = task.countOfBytesExpectedToSend
                let progress = EventData(
                    bytesSent: bytesSent,
                    totalBytesSent: task.countOfBytesSent,
                    totalBytesExpectedToSend: task.countOfBytesSent
                )
                try eventLog.append(db, .taskUploadProgress, for: task, data: progress)
            }
            try task.update(db)
        }
        try eventLog.append(db, .taskCompleted, for: task, data: .completion(error: task.error))
        if let backgroundTask = task.backgroundTask { try settleBackgroundTask(backgroundTask, db) }
    }

    private func afterCommit(_ action: TaskStateMachine.Action, taskID: Int64) {
        switch action {
        case .enqueue, .scheduleRetry:
            wakeup.ring()
        case .suspend(stopTransfer: true), .stopTransferForCancel:
            transfers[taskID]?.interrupt(.byClient)
        case .none, .suspend(stopTransfer: false), .complete:
            break
        }
    }
}

extension TaskState {
    /// Whether a task in this state is queued, transferring or winding down: the session still has work.
    var isBusy: Bool {
        self == .running || self == .canceling
    }
}
