import Foundation
import Logging
import TransferdDomain
import TransferdEngine
import TransferdStorage

/// Creates tasks and carries out what clients ask of them (resume, suspend, cancel, change), and records what the
/// engine reports of their transfers. The state machine decides; `TaskTransitions` applies its actions.
package struct TaskService: Sendable {
    let store: any Store
    /// This instance: the owner its transfers' leases name.
    let instance: Instance
    let transitions: TaskTransitions
    let backgroundTasks: BackgroundTaskService
    let files: FileStore
    /// What finished tasks keep, in the data directory or the content store.
    let kept: KeptContent
    /// The transfers under way, owned by the engine.
    package let transfers: ActiveTransfers
    /// Tasks started by their creations, handed to the engine.
    let started: StartedTasks
    let retryPolicy: RetryPolicy
    let limits: ResourceLimits
    let quotas: TenantQuotas
    /// When discretionary sessions' transfers run even while other work waits.
    let discretionaryHours: DiscretionaryHours
    /// Seals the credentials that answer challenges.
    let vault: CredentialVault
    package let resumeDataSigner: ResumeData.Signer
    let clock: any WallClock
    /// Counts the ends of transfer attempts, and times them.
    let metrics: ServiceMetrics
    let logger: Logger
    /// Creations and what the engine reports of its transfers, written in transactions shared by the writes that
    /// arrive together: with many short transfers, a transaction each kept the one writer busy committing.
    let writes: GroupCommit
    /// The ends of transfers written without a transaction (``TaskEnding``), those that arrive together written
    /// together.
    let ends = Gathering<TransferEnds.Item, Bool>()

    package init(
        store: any Store,
        instance: Instance,
        transitions: TaskTransitions,
        backgroundTasks: BackgroundTaskService,
        files: FileStore,
        objects: ObjectStores,
        transfers: ActiveTransfers,
        started: StartedTasks,
        retryPolicy: RetryPolicy,
        limits: ResourceLimits,
        quotas: TenantQuotas,
        discretionaryHours: DiscretionaryHours,
        vault: CredentialVault,
        resumeDataSigner: ResumeData.Signer,
        clock: any WallClock,
        metrics: ServiceMetrics,
        logger: Logger
    ) {
        self.store = store
        self.instance = instance
        self.metrics = metrics
        self.transitions = transitions
        self.backgroundTasks = backgroundTasks
        self.files = files
        kept = KeptContent(files: files, objects: objects, logger: logger)
        self.transfers = transfers
        self.started = started
        self.retryPolicy = retryPolicy
        self.limits = limits
        self.quotas = quotas
        self.discretionaryHours = discretionaryHours
        self.vault = vault
        self.resumeDataSigner = resumeDataSigner
        self.clock = clock
        self.logger = logger
        writes = GroupCommit(store: store)
    }

    var eventLog: EventLog { transitions.eventLog }

    /// Creates tasks in a live session in one transaction, all or none, writing `task.created` (and `task.resumed`
    /// for those that start at once). When they are the items of the batch in `field`, the refusal of one names its
    /// index. Each task is created in a span of its own (``CreationSpans``), whose trace its attempts continue.
    package func create(_ newTasks: [NewTask], in session: Session, itemsIn field: String?) async throws -> [TransferTask] {
        guard !newTasks.isEmpty else { return [] }
        let sessionID = session.rowID
        var newTasks = newTasks
        let spans = CreationSpans(&newTasks, in: session)
        do {
            let created: [TransferTask]
            if let alone = try await createAlone(newTasks, in: session) {
                created = alone
            } else {
                created = try await writes.write(forSession: sessionID) { [newTasks] repositories in
                    try await insert(newTasks, sessionID: sessionID, itemsIn: field, repositories)
                }
            }
            spans.end(created)
            return created
        } catch {
            spans.end(failing: error)
            throw error
        }
    }

    /// Creates tasks in a live session inside the caller's transaction, as ``create(_:in:itemsIn:)`` does.
    package func insert(
        _ newTasks: [NewTask],
        sessionID: Int64,
        itemsIn field: String?,
        _ repositories: any Repositories
    ) async throws -> [TransferTask] {
        // The identifiers are taken as the session and its tenant are read (a refusal rolls them back with the
        // transaction).
        let taken = try await repositories.sessions.takeTaskIdentifiers(newTasks.count, sessionID: sessionID)
        let refusal = admission(of: newTasks.map(\.kind)).decide(
            session: taken?.session.state,
            tasksInSession: taken?.tasks ?? 0,
            tenant: taken?.tenant
        )
        guard let taken, refusal == nil else {
            throw (refusal ?? .sessionNotActive(nil)).error(session: taken?.session.identifier ?? "")
        }
        let session = taken.session
        // Inserted together (one statement on PostgreSQL, sent with the events') but for those continuing resume
        // data, which take their partial file over as they are inserted; row ids follow task identifiers all the
        // same.
        var (created, unsaved) = ([TransferTask](), [TransferTask]())
        for (index, (identifier, newTask)) in zip(taken.identifiers, newTasks).enumerated() {
            do {
                var task = try await prepare(newTask, as: identifier, in: session, repositories)
                task.id = taken.rowIDs?[index]
                guard let resumeData = newTask.resumeData else {
                    unsaved.append(task)
                    continue
                }
                await created += try repositories.tasks.insert(unsaved)
                unsaved = []
                await created.append(try continueDownload(from: resumeData, in: task, repositories))
            } catch let refusal as DomainError where field != nil {
                throw refusal.item(index, of: field ?? "")
            }
        }
        await created += try repositories.tasks.insert(unsaved)
        // Announced before the append, which notifies what is announced so far (on PostgreSQL).
        if newTasks.contains(where: \.start) { repositories.announce(.work) }
        // task.created, and task.resumed for those that start at once, all in one append.
        try await eventLog.append(
            repositories,
            zip(created, newTasks).flatMap { task, newTask in
                TaskCreation.events(starting: newTask.start).map { EventLog.Entry($0, for: task) }
            }
        )
        return created
    }

    /// Creates tasks that need nothing read first (no background task, upload source or resume data) in one
    /// statement outside any transaction, where the store allows (``TaskCreation``); nil when it wrote nothing: the
    /// store does not, or the session refused them, and a transaction creates them or says why not. Downloads that
    /// start at once start on this instance, without a claim, when it keeps workers for them and the statement finds
    /// nothing else waiting (``TaskCreation/Start``).
    private func createAlone(_ newTasks: [NewTask], in session: Session) async throws -> [TransferTask]? {
        guard newTasks.allSatisfy({ $0.backgroundTask == nil && $0.kind == .download && $0.resumeData == nil }) else { return nil }
        let now = clock.now
        let tasks = newTasks.map { newTask in
            var task = TransferTask(newTask, sessionID: session.rowID, taskIdentifier: 0, createdAt: now)
            bindToContentStore(&task)
            return task
        }
        let kept = try await keepWorkers(for: tasks, in: session, at: now)
        let (leasedAt, leaseNow) = (ContinuousClock.now, instance.clock.now)
        let start = kept.map { _ in
            TaskCreation.Start(
                lease: TaskLease(owner: instance.id, expiresAt: instance.leaseExpiry(from: leaseNow)),
                leasesAt: leaseNow,
                startedAt: now,
                origin: tasks[0].origin,
                maximumConnectionsPerHost: session.configuration.maximumConnectionsPerHost
            )
        }
        let creation = TaskCreation(
            sessionID: session.rowID,
            tasks: tasks,
            events: newTasks.map { TaskCreation.events(starting: $0.start) },
            admission: admission(of: tasks.map(\.kind)),
            createdAt: now,
            traceparent: Trace.parent,
            start: start
        )
        let written: TaskCreation.Written?
        do {
            written = try await store.alone({ try await $0.tasks.create(creation) }) ?? nil
        } catch {
            if let kept { started.giveBack(kept, of: session.tenantId) }
            throw error
        }
        if let kept {
            if let written, !written.started.isEmpty {
                started.hand(
                    zip(written.tasks, written.started).map { task, revision in
                        StartedTasks.Started(
                            row: TaskEnding.Basis(task: task, revision: revision, session: nil),
                            configuration: session.configuration,
                            tenantID: session.tenantId,
                            leasedAt: leasedAt
                        )
                    }
                )
            } else {
                started.giveBack(kept, of: session.tenantId)
            }
        }
        guard let written else { return nil }
        eventLog.count(written.events, of: written.tasks)
        return written.tasks
    }

    /// A download kept by the service goes to the content store, when there is one, under a name of its own.
    private func bindToContentStore(_ task: inout TransferTask) {
        guard let contentStore = files.contentStore, task.transfer.download?.destination == .dataDirectory else { return }
        let location = contentStore.newContentLocation(sessionID: task.sessionId)
        task.transfer.updateDownload { $0.destination = .object(location) }
    }

    /// Keeps workers of this instance for `tasks`, to start them where they are created: downloads due now, to one
    /// origin, of a session that is not discretionary, as many as its `maximumConnectionsPerHost` takes, when the
    /// engine has workers free for them (``StartedTasks``); how many it kept, nil for none.
    private func keepWorkers(for tasks: [TransferTask], in session: Session, at now: Date) async throws -> Int? {
        let configuration = session.configuration
        guard instance.sharesDatabase, !configuration.discretionary, tasks.count <= configuration.maximumConnectionsPerHost,
            tasks.allSatisfy({
                $0.state == .running && $0.kind == .download && $0.origin == tasks[0].origin && ($0.earliestBeginDate ?? now) <= now
            })
        else { return nil }
        let shares = try await store.lookup { try await quotas.transferShares($0) }
        return started.keep(tasks.count, for: session.tenantId, shares: shares) ? tasks.count : nil
    }

    /// A new task of the session as it will be inserted, its background task and upload source checked.
    private func prepare(
        _ newTask: NewTask,
        as taskIdentifier: Int64,
        in session: Session,
        _ repositories: any Repositories
    ) async throws -> TransferTask {
        var task = TransferTask(newTask, sessionID: session.rowID, taskIdentifier: taskIdentifier, createdAt: clock.now)
        if let backgroundTask = newTask.backgroundTask {
            guard try await repositories.backgroundTasks.find(publicID: backgroundTask, sessionID: session.rowID)?.state == .active else {
                throw DomainError.conflict("Background task `\(backgroundTask)` is not an active background task of this session.")
            }
            task.backgroundTask = backgroundTask
        }
        if case .upload(let upload) = newTask.transfer {
            try await bindUploadSource(upload, to: &task, tenantID: session.tenantId, repositories)
        }
        // Continued resume data keeps its partial file in the data directory, where it was.
        if newTask.resumeData == nil { bindToContentStore(&task) }
        return task
    }

    /// Applies a client's `resume`, `suspend` or `cancel`; an input the task's state forbids is a conflict.
    package func apply(_ input: TaskStateMachine.Input, sessionID: Int64, taskIdentifier: Int64) async throws -> TransferTask {
        try await store.write { repositories in
            var task = try await Self.task(taskIdentifier, sessionID: sessionID, repositories)
            do {
                try await transitions.apply(input, to: &task, repositories)
            } catch is TaskStateMachine.IllegalTransition {
                throw DomainError.conflict("Task \(taskIdentifier) is \(task.state.rawValue); it cannot \(input.name).")
            }
            return task
        }
    }

    /// Changes a task's priority, description or bandwidth limit; a limit applies at once to a transfer under way,
    /// on whichever instance runs it.
    package func update(_ change: TaskChange, sessionID: Int64, taskIdentifier: Int64) async throws -> TransferTask {
        try await store.write { repositories in
            var task = try await Self.task(taskIdentifier, sessionID: sessionID, repositories)
            guard task.state != .completed else { throw DomainError.conflict("Task \(taskIdentifier) is completed; it cannot change.") }
            if let priority = change.priority { task.priority = priority }
            if let description = change.taskDescription { task.taskDescription = description }
            if let rate = change.maxBytesPerSecond { task.maxBytesPerSecond = rate }
            try await repositories.tasks.update(task)
            if change.maxBytesPerSecond != nil { repositories.announce(.task(id: task.rowID)) }
            return task
        }
    }

    /// The session's task with this identifier.
    package func task(_ taskIdentifier: Int64, in session: Session) async throws -> TransferTask {
        try await store.lookup { repositories in
            guard let task = try await repositories.tasks.find(sessionID: session.rowID, taskIdentifier: taskIdentifier) else {
                throw Self.notFound(taskIdentifier, in: session)
            }
            return task
        }
    }

    /// The 404 of a task `session` does not have.
    static func notFound(_ taskIdentifier: Int64, in session: Session) -> DomainError {
        .notFound("Task \(taskIdentifier) does not exist in session `\(session.identifier)`.")
    }

    /// The session's tasks after task identifier `cursor`, optionally in one state.
    package func tasks(in sessionID: Int64, after cursor: Int64, state: TaskState?, limit: Int) async throws -> [TransferTask] {
        try await store.lookup { try await $0.tasks.list(sessionID: sessionID, after: cursor, state: state, limit: limit) }
    }

    /// Forgets a finished download's content and removes its file; refused while an upload task will send it.
    package func removeContent(of task: TransferTask) async throws {
        try await store.write { repositories in
            let users = try await repositories.tasks.unfinishedUploads(sending: .task(task.rowID))
            guard users.isEmpty else {
                throw DomainError.conflict("Upload task(s) \(users.map(String.init).joined(separator: ", ")) will send this content.")
            }
            try await repositories.tasks.forgetContent(id: task.rowID)
        }
        await kept.removeContent(of: task)
    }

    /// The task once it is no longer `canceling` (its transfer has stopped), or as it is after `timeout`.
    package func settled(_ task: TransferTask, timeout: Duration) async throws -> TransferTask {
        let deadline = ContinuousClock.now + timeout
        var task = task
        while task.state == .canceling, ContinuousClock.now < deadline {
            let seen = eventLog.signal.version(sessionID: task.sessionId)
            task = try await store.lookup { [task] in try await $0.tasks.find(id: task.rowID) } ?? task
            if task.state == .canceling {
                await eventLog.signal.wait(sessionID: task.sessionId, seen: seen, timeout: deadline - ContinuousClock.now)
            }
        }
        return task
    }

    /// The task as the API shows it, with the live counters of a transfer under way and what keeps it waiting once
    /// due: its session being discretionary outside the window, or a connection to its host.
    package func representation(of task: TransferTask, in session: Session) -> TaskRepresentation {
        let now = clock.now
        let queue = HostQueue(sessionID: session.rowID, origin: task.origin)
        let heldBack: TransferTask.WaitingReason? =
            if session.configuration.discretionary && !discretionaryHours.contains(now) {
                .discretionary
            } else if transfers.count(queue) >= session.configuration.maximumConnectionsPerHost {
                .hostLimit
            } else {
                nil
            }
        return TaskRepresentation(task, live: transfers[task.rowID]?.liveCounters, heldBack: heldBack, now: now)
    }

    /// The rule new tasks of `kinds` are held to: the session's most, and its tenant's quotas of queued tasks and, for
    /// a download, of stored bytes.
    private func admission(of kinds: [TransferTask.Kind]) -> CreationAdmission {
        CreationAdmission(
            count: kinds.count,
            needsStorage: kinds.contains(.download),
            maximumTasksPerSession: limits.maximumTasksPerSession,
            defaultQuota: quotas.defaults
        )
    }

    static func task(_ taskIdentifier: Int64, sessionID: Int64, _ repositories: any Repositories) async throws -> TransferTask {
        guard let task = try await repositories.tasks.find(sessionID: sessionID, taskIdentifier: taskIdentifier) else {
            throw DomainError.notFound("Task \(taskIdentifier) does not exist in this session.")
        }
        return task
    }
}
