import Foundation
import TransferdDomain
import TransferdEngine
import TransferdStorage

/// Applies the task state machine's decisions: inside the caller's transaction it writes the task's new state, the
/// events the action causes, and the bookkeeping of the task's session and background task; what must follow the
/// commit (waking the scheduler, stopping a transfer on whichever instance runs it) is announced as signals.
///
/// Task, session and background-task services all change tasks through here, so that a task completes the same
/// way whoever completes it.
package struct TaskTransitions: Sendable {
    let eventLog: EventLog
    let files: FileStore
    /// This instance's transfers under way, owned by the engine: their live counters.
    let transfers: ActiveTransfers
    package let resumeDataSigner: ResumeData.Signer
    let clock: any WallClock
    /// The clock leases are timed by (`Instance.clock`).
    let leaseClock: any WallClock

    package init(
        eventLog: EventLog,
        files: FileStore,
        transfers: ActiveTransfers,
        resumeDataSigner: ResumeData.Signer,
        clock: any WallClock,
        leaseClock: any WallClock
    ) {
        self.eventLog = eventLog
        self.files = files
        self.transfers = transfers
        self.resumeDataSigner = resumeDataSigner
        self.clock = clock
        self.leaseClock = leaseClock
    }

    /// Feeds `input` to the machine of `task` (as it is in the store) and performs the action, in the caller's
    /// transaction. A task is transferring while an instance holds its lease; `isTransferring` overrides that: a
    /// report that a transfer ended speaks of one.
    ///
    /// With `held`, the task's row, its events and its session's bookkeeping are held back for ``flush(_:_:)``.
    @discardableResult
    func apply(
        _ input: TaskStateMachine.Input,
        to task: inout TransferTask,
        isTransferring: Bool? = nil,
        _ repositories: any Repositories,
        holding held: HeldWrites?
    ) async throws -> TaskStateMachine.Action {
        var machine = TaskStateMachine(
            state: task.state,
            isTransferring: isTransferring ?? task.isTransferring(at: leaseClock.now),
            cancellation: task.pendingCancellation
        )
        let action = try machine.handle(input)
        try await perform(action, on: &task, newState: machine.state, Writes(repositories: repositories, held: held))
        return action
    }

    /// Feeds `input` to the machine of `task` and performs the action, writing in the caller's transaction at once.
    @discardableResult
    package func apply(
        _ input: TaskStateMachine.Input,
        to task: inout TransferTask,
        isTransferring: Bool? = nil,
        _ repositories: any Repositories
    ) async throws -> TaskStateMachine.Action {
        try await apply(input, to: &task, isTransferring: isTransferring, repositories, holding: nil)
    }

    /// Writes what `held` holds: the bookkeeping of the sessions whose tasks went idle (from the workloads `held`
    /// keeps), then the tasks' rows, their events and the sessions' together (one statement on PostgreSQL: the rows
    /// go with the append; a session that went idle was a statement more, and its workload's read another).
    func flush(_ held: HeldWrites, _ repositories: any Repositories) async throws {
        let (tasks, held, idleSessions) = held.take()
        var events = held
        if !tasks.isEmpty { try await repositories.tasks.holdUpdates(tasks) }
        for (sessionID, known) in idleSessions {
            // (A read sends the tasks' rows first.)
            let workload = if let known { known } else { try await repositories.queue.workload(sessionID: sessionID) }
            events += try await settlement(of: sessionID, workload: workload, taskBecameIdle: true, repositories)
        }
        // A session's events stay in order, its tasks' before its own; sessions together are fewer statements.
        if !events.isEmpty {
            try await eventLog.append(repositories, events.enumerated().sorted { ($0.1.sessionID, $0.0) < ($1.1.sessionID, $1.0) }.map(\.1))
        }
    }

    /// What `held` holds, the ends of the transfers of the tasks of one session known as `bases`, as one write
    /// (``TaskEnding``): the tasks' rows, their events, and `session.events_finished` for when the ends leave the
    /// session no busy task (the statement, which sees its busy tasks as they are, decides); nil when it holds more.
    /// The statement writes only to an active session, whose bookkeeping writes nothing else.
    func ending(
        _ held: HeldWrites,
        from bases: [TaskEnding.Basis],
        owner: String,
        _ repositories: any Repositories
    ) async throws -> TaskEnding? {
        let (tasks, entries, idleSessions) = held.take()
        let known = Dictionary(bases.map { ($0.task.rowID, $0) }, uniquingKeysWith: { first, _ in first })
        guard let sessionID = bases.first?.task.sessionId, tasks.count == known.count,
            tasks.allSatisfy({ known[$0.rowID] != nil }), entries.allSatisfy({ $0.sessionID == sessionID }),
            idleSessions.allSatisfy({ $0.id == sessionID })
        else { return nil }
        let idle = SessionWorkload(state: .active, cancelsTasks: false, busy: 0, unfinished: 0)
        let ifIdle = idleSessions.isEmpty ? [] : try await settlement(of: sessionID, workload: idle, taskBecameIdle: true, repositories)
        return TaskEnding(
            sessionID: sessionID,
            owner: owner,
            tasks: tasks.map { ($0, known[$0.rowID]!.revision) },
            events: entries.map { ($0.taskIdentifier, $0.payload) },
            eventsIfIdle: ifIdle.map { ($0.taskIdentifier, $0.payload) },
            leavingBusy: tasks.reduce(0) { $0 + (known[$1.rowID]!.task.state.isBusy ? 1 : 0) - ($1.state.isBusy ? 1 : 0) },
            createdAt: clock.now,
            traceparent: repositories.traceparent
        )
    }

    /// Where a transition writes: in the transaction at once, or held back for ``flush(_:_:)``.
    private struct Writes {
        let repositories: any Repositories
        let held: HeldWrites?

        func update(_ task: TransferTask) async throws {
            if let held { held.hold(task) } else { try await repositories.tasks.update(task) }
        }

        func append(_ entries: [EventLog.Entry], _ eventLog: EventLog) async throws {
            if let held { held.hold(entries) } else { try await eventLog.append(repositories, entries) }
        }
    }

    /// Cancels unfinished tasks in the caller's transaction: invalidateAndCancel, endBackgroundTask with
    /// `cancelTasks`, or (`expire`) a background task's deadline, which completes them at once.
    package func cancel(_ tasks: [TransferTask], _ input: TaskStateMachine.Input, _ repositories: any Repositories) async throws {
        for var task in tasks where task.state != .completed {
            try await apply(input, to: &task, repositories)
        }
    }

    /// Writes the task's new state and the events of `action`, then settles its session.
    private func perform(
        _ action: TaskStateMachine.Action,
        on task: inout TransferTask,
        newState: TaskState,
        _ writes: Writes
    ) async throws {
        let repositories = writes.repositories
        let wasBusy = task.state.isBusy
        let taskID = task.rowID
        task.state = newState
        switch action {
        case .none, .requeue:
            return
        case .enqueue:
            // A resumed task runs now (a retry's backoff is over), but not before its earliest begin date.
            task.nextAttemptAt = task.earliestBeginDate
            task.waitingReason = nil
            // A challenge that waited is asked again by the next request.
            task.challenge = nil
            try await writes.update(task)
            try await writes.append([EventLog.Entry(.taskResumed(StateChange(.running)), for: task)], eventLog)
            wakeScheduler(repositories)
        case .suspend(let stopTransfer):
            if let live = transfers[taskID]?.liveCounters {
                (task.countOfBytesReceived, task.countOfBytesExpected) = live
            }
            try await writes.update(task)
            try await writes.append([EventLog.Entry(.taskSuspended(StateChange(.suspended)), for: task)], eventLog)
            if stopTransfer { interrupt(taskID, repositories) }
        case .stopTransfer(let cancellation):
            task.pendingCancellation = cancellation
            try await writes.update(task)
            interrupt(taskID, repositories)
        case .complete(let completion):
            try await complete(&task, completion, writes)
            if completion.stopTransfer { interrupt(taskID, repositories) }
        case .scheduleRetry(let at, let error):
            try await scheduleRetry(&task, at: at, after: error, writes)
            wakeScheduler(repositories)
        case .awaitChallengeAnswer(let space, let failures):
            try await awaitAnswer(&task, space: space, previousFailureCount: failures, writes)
            wakeScheduler(repositories)
        case .discardLateTransfer:
            // Its partial file stays only when the task's resume data points to it.
            if task.error?.resumeData == nil { files.removePartial(taskID: taskID) }
            return
        }
        if wasBusy && !newState.isBusy {
            guard let held = writes.held else { return try await settleSession(task.sessionId, taskBecameIdle: true, repositories) }
            held.settle(sessionID: task.sessionId)
        }
    }

    private func complete(_ task: inout TransferTask, _ completion: TaskStateMachine.Completion, _ writes: Writes) async throws {
        let repositories = writes.repositories
        task.error = completion.error
        let completedAt = clock.now
        task.completedAt = completedAt
        if task.metrics != nil { task.metrics?.complete(startedAt: task.startedAt ?? task.createdAt, completedAt: completedAt) }
        var events: [EventLog.Entry] = []
        if let file = completion.file {
            // The attempt published the file, durably, before its end was written (`FileStore.publish`).
            let (files, taskID) = (files, task.rowID)
            repositories.afterCommit { files.removePartial(taskID: taskID) }
            let bytesWritten = file.size - task.countOfBytesReceived
            task.transfer.updateDownload { ($0.file, $0.partialBytes, $0.keptRanges, $0.objectUpload) = (file, 0, nil, nil) }
            task.countOfBytesReceived = file.size
            task.countOfBytesExpected = file.size
            try await writes.update(task)
            let progress = DownloadProgress(bytesWritten: bytesWritten, totalBytesWritten: file.size, totalBytesExpectedToWrite: file.size)
            events.append(EventLog.Entry(.taskProgress(progress), for: task))
            events.append(
                EventLog.Entry(.taskFinishedDownloading(FinishedDownloading(file: file, taskIdentifier: task.taskIdentifier)), for: task)
            )
        } else {
            if let error = completion.error, let resumeData = resumeData(for: task, after: error, requested: completion.produceResumeData) {
                task.error?.resumeData = try resumeDataSigner.token(for: resumeData)
            } else {
                discardPartial(of: &task)
            }
            if case .upload(var upload) = task.transfer, completion.error == nil {
                let bytesSent = upload.countOfBytesExpectedToSend - upload.countOfBytesSent
                upload.countOfBytesSent = upload.countOfBytesExpectedToSend
                task.transfer = .upload(upload)
                let progress = UploadProgress(
                    bytesSent: bytesSent,
                    totalBytesSent: upload.countOfBytesSent,
                    totalBytesExpectedToSend: upload.countOfBytesSent
                )
                events.append(EventLog.Entry(.taskUploadProgress(progress), for: task))
            }
            try await writes.update(task)
        }
        // A run's schedule judges it.
        if task.fetchId != nil { repositories.announce(.fetches) }
        // didCompleteWithError after the progress and the file it follows, written together.
        events.append(EventLog.Entry(.taskCompleted(Completion(error: task.error, metrics: task.metrics)), for: task))
        try await writes.append(events, eventLog)
        if let backgroundTask = task.backgroundTask {
            // It counts its transfers' states, this one's among them.
            if let held = writes.held {
                guard held.flushesEarly else { throw HeldWrites.FlushedEarly() }
                try await flush(held, repositories)
            }
            try await settleBackgroundTask(backgroundTask, repositories)
        }
    }

    /// didReceiveChallenge: the task waits for the answer until its session's `challengeTimeout` has passed (then
    /// the scheduler runs it once more, which fails it with `userAuthenticationRequired`).
    private func awaitAnswer(
        _ task: inout TransferTask,
        space: ProtectionSpace,
        previousFailureCount: Int,
        _ writes: Writes
    ) async throws {
        let repositories = writes.repositories
        let timeout = try await repositories.sessions.find(id: task.sessionId)?.configuration.challengeTimeout ?? 300
        let now = clock.now
        let challenge = AuthenticationChallenge(
            protectionSpace: space,
            previousFailureCount: previousFailureCount,
            issuedAt: now,
            expiresAt: now.addingTimeInterval(timeout)
        )
        task.challenge = challenge
        // The credential that was sent for the space failed.
        task.credentials.removeAll { $0.protectionSpace == space }
        task.nextAttemptAt = challenge.expiresAt
        task.waitingReason = .authenticationChallenge
        if task.transfer.download?.resumeValidator == nil { discardPartial(of: &task) }
        task.countOfBytesReceived = task.transfer.download?.keptBytes ?? 0
        try await writes.update(task)
        try await writes.append([EventLog.Entry(.taskAuthenticationChallenge(ChallengeIssued(challenge)), for: task)], eventLog)
    }

    private func scheduleRetry(_ task: inout TransferTask, at: Date, after error: TransferError, _ writes: Writes) async throws {
        // taskIsWaitingForConnectivity: once when the host becomes unreachable, not on every retry.
        let wasWaitingForConnectivity = task.waitingReason == .waitingForConnectivity
        let reason: TransferTask.WaitingReason =
            switch error.code {
            case _ where error.isConnectivityFailure: .waitingForConnectivity
            case .outOfSpace: .insufficientStorage
            case .quotaExceeded: .storageQuota
            default: .retryBackoff
            }
        task.nextAttemptAt = at
        task.waitingReason = reason
        if task.transfer.download?.resumeValidator == nil { discardPartial(of: &task) }
        // The next attempt continues from the checkpoint.
        task.countOfBytesReceived = task.transfer.download?.keptBytes ?? 0
        try await writes.update(task)
        if reason == .waitingForConnectivity, !wasWaitingForConnectivity {
            try await writes.append([EventLog.Entry(.taskWaitingForConnectivity, for: task)], eventLog)
        }
    }

    /// Session bookkeeping in the transaction of a change of its tasks: `session.events_finished` when the session
    /// went idle, and the end of an invalidation when no task is left unfinished.
    package func settleSession(_ sessionID: Int64, taskBecameIdle: Bool, _ repositories: any Repositories) async throws {
        let workload = try await repositories.queue.workload(sessionID: sessionID)
        let events = try await settlement(of: sessionID, workload: workload, taskBecameIdle: taskBecameIdle, repositories)
        if !events.isEmpty { try await eventLog.append(repositories, events) }
    }

    /// What `settleSession` does but append its events, which it returns in order for the caller to append, for the
    /// session's `workload` as the transaction has it now (nil: the session is gone).
    private func settlement(
        of sessionID: Int64,
        workload: SessionWorkload?,
        taskBecameIdle: Bool,
        _ repositories: any Repositories
    ) async throws -> [EventLog.Entry] {
        guard let workload else { return [] }
        var machine = SessionStateMachine(state: workload.state, cancelsTasks: workload.cancelsTasks)
        let action: SessionStateMachine.Action
        do {
            action = try machine.handle(
                .tasksChanged(busy: workload.busy, unfinished: workload.unfinished, taskBecameIdle: taskBecameIdle)
            )
        } catch {
            return []
        }
        let finished = EventLog.Entry(sessionID: sessionID, .sessionEventsFinished)
        switch action {
        case .none, .beginInvalidation:
            return []
        case .finishEvents:
            return [finished]
        case .completeInvalidation(let finishEvents):
            guard var session = try await repositories.sessions.find(id: sessionID) else { return finishEvents ? [finished] : [] }
            session.state = machine.state
            session.invalidatedAt = clock.now
            try await repositories.sessions.updateState(of: session)
            // An invalidated session takes no tasks, so the partial files its resume data pointed to go.
            for taskID in try await repositories.tasks.releaseResumeData(sessionID: sessionID) { files.removePartial(taskID: taskID) }
            return (finishEvents ? [finished] : []) + [EventLog.Entry(sessionID: sessionID, .sessionInvalidated)]
        }
    }

    /// A transfer of a background task completed: the background task completes itself once none is left unfinished.
    private func settleBackgroundTask(_ publicID: String, _ repositories: any Repositories) async throws {
        guard let backgroundTask = try await repositories.backgroundTasks.find(publicID: publicID) else { return }
        let unfinished = try await repositories.tasks.transfers(ofBackgroundTask: publicID).count { $0.state != .completed }
        var machine = BackgroundTaskStateMachine(backgroundTask)
        let now = clock.now
        guard (try? machine.handle(.transferCompleted(unfinished: unfinished), at: now)) == .complete else { return }
        try await repositories.backgroundTasks.update(machine.task)
        try await eventLog.append(
            repositories,
            sessionID: backgroundTask.sessionId,
            .backgroundTaskCompleted(BackgroundTaskTime(machine.task, at: now))
        )
    }

    /// The resume data of a task ending with `error`, when it keeps its partial file: its bytes can be continued,
    /// and the client asked for it (a cancel) or the failure was transient (retries or time ran out).
    private func resumeData(for task: TransferTask, after error: TransferError, requested: Bool) -> ResumeData? {
        guard let download = task.transfer.download, let validator = download.resumeValidator, download.partialBytes > 0,
            files.partialSize(taskID: task.rowID) >= download.partialBytes,
            [.cancelled, .backgroundTaskExpired].contains(error.code) ? requested : error.isTransient
        else { return nil }
        return ResumeData(
            sessionID: task.sessionId,
            taskID: task.rowID,
            // Resume data is readable by whoever holds it (a subscriber, a log): never a password.
            url: Redaction.withoutPassword(task.originalRequest.url),
            bytes: download.partialBytes,
            expectedBytes: task.countOfBytesExpected,
            validator: validator
        )
    }

    /// Removes a task's partial file: its bytes will not be continued.
    private func discardPartial(of task: inout TransferTask) {
        files.removePartial(taskID: task.rowID)
        task.transfer.updateDownload { ($0.partialBytes, $0.keptRanges) = (0, nil) }
    }

    private func wakeScheduler(_ repositories: any Repositories) {
        repositories.announce(.work)
    }

    /// The instance running the task's transfer stops it once this commits.
    private func interrupt(_ taskID: Int64, _ repositories: any Repositories) {
        repositories.announce(.task(id: taskID))
    }
}
