import Foundation
import ServiceLifecycle
import Tracing
import TransferdDomain

extension FetchService {
    /// The most runs started, or settled, in one transaction.
    static let batch = 100

    /// Settles the runs whose tasks completed, then starts the runs that are due; returns when the next run falls due.
    /// A graceful shutdown ends it after the batch in hand (what is left waits for the next start).
    package func processRuns() async throws -> Date? {
        let now = clock.now
        while !Task.isShuttingDownGracefully {
            let ended = try await store.read { try await $0.fetchSchedules.endedRuns(limit: Self.batch) }
            if !ended.isEmpty { try await settle(ended, at: now) }
            if ended.count < Self.batch { break }
        }
        while !Task.isShuttingDownGracefully {
            let due = try await store.read { try await $0.fetchSchedules.due(at: now, limit: Self.batch) }
            for (sessionID, runs) in Dictionary(grouping: due, by: \.sessionID) {
                try await start(runs.map(\.publicID), sessionID: sessionID, at: now)
            }
            if due.count < Self.batch { break }
        }
        return try await store.read { try await $0.fetchSchedules.nextRunAt() }
    }

    /// Starts the runs of a session's schedules that are still due and have none under way, in one transaction: a
    /// download task each, conditional on the latest version, created together with each schedule's next run time.
    /// A session that refuses the tasks (a limit, a quota) is asked for them one at a time, and a run it refuses is
    /// `failed`. The runs are a `fetch` span, whose trace their tasks' attempts continue.
    func start(_ publicIDs: [String], sessionID: Int64, at now: Date) async throws {
        try await InstrumentationSystem.tracer.withSpan("fetch") { span in
            span.attributes["transferd.session.id"] = Int(sessionID)
            span.attributes["transferd.fetch.runs"] = publicIDs.count
            try await start(publicIDs, sessionID: sessionID, at: now, traceparent: Trace.traceparent(of: span.context))
        }
    }

    private func start(_ publicIDs: [String], sessionID: Int64, at now: Date, traceparent: String?) async throws {
        try await store.write { [tasks] repositories in
            var starting: [(schedule: FetchSchedule, machine: FetchScheduleStateMachine, task: NewTask)] = []
            for publicID in publicIDs {
                guard var schedule = try await repositories.fetchSchedules.find(publicID: publicID, sessionID: sessionID),
                    schedule.nextRunAt <= now
                else { continue }
                var machine = FetchScheduleStateMachine(schedule.phase)
                guard try machine.handle(.due) == .startRun else { continue }
                schedule.nextRunAt = schedule.timing.nextRun(anchor: schedule.anchorAt, after: now, draw: .random(in: 0..<1))
                var task = try await run(of: schedule, repositories)
                task.traceparent = traceparent
                starting.append((schedule, machine, task))
            }
            guard !starting.isEmpty else { return }
            var together: [TransferTask]?
            do {
                together = try await repositories.isolated {
                    try await tasks.insert(starting.map(\.task), sessionID: sessionID, itemsIn: nil, repositories)
                }
            } catch is DomainError {
                together = nil
            }
            for (index, (var schedule, var machine, task)) in starting.enumerated() {
                do {
                    let created: TransferTask
                    if let together {
                        created = together[index]
                    } else {
                        created = try await repositories.isolated {
                            try await tasks.insert([task], sessionID: sessionID, itemsIn: nil, repositories)[0]
                        }
                    }
                    _ = try machine.handle(.runStarted(taskIdentifier: created.taskIdentifier))
                    schedule.phase = machine.phase
                } catch let refusal as DomainError {
                    try await fail(&schedule, refusal, at: now, repositories)
                }
                try await repositories.fetchSchedules.update(schedule)
            }
        }
    }

    /// A run the session refused: `failed`, with no task.
    private func fail(_ schedule: inout FetchSchedule, _ refusal: DomainError, at now: Date, _ repositories: any Repositories) async throws
    {
        schedule.lastRun = FetchRun(result: .failed, taskIdentifier: nil, performedAt: now, error: refusal.detail)
        let performed = FetchPerformed(fetchId: schedule.publicId, result: .failed, taskIdentifier: nil, latest: schedule.latest)
        try await eventLog.append(repositories, sessionID: schedule.sessionId, .fetchPerformed(performed))
    }

    /// The run's task: the schedule's download, with the validators of the latest version whose content is still
    /// kept (a version whose content expired is fetched again in full).
    private func run(of schedule: FetchSchedule, _ repositories: any Repositories) async throws -> NewTask {
        var request = schedule.request
        if let latest = schedule.latest,
            try await repositories.tasks.find(sessionID: schedule.sessionId, taskIdentifier: latest.taskIdentifier)?.transfer.download?.file
                != nil
        {
            request.headers.merge(schedule.conditionalHeaders) { _, validator in validator }
        }
        var newTask = NewTask(
            transfer: .download(DownloadTransfer(destination: schedule.destination)),
            request: request,
            origin: schedule.origin,
            taskDescription: schedule.taskDescription,
            priority: 0.5,
            start: true
        )
        newTask.fetchId = schedule.publicId
        return newTask
    }

    /// Judges the runs whose tasks completed, in one transaction; content that is no news or that falls past
    /// `keepVersions` is removed after the commit.
    func settle(_ runs: [(publicID: String, sessionID: Int64)], at now: Date) async throws {
        let removed: [TransferTask] = try await store.write { repositories in
            var removed: [TransferTask] = []
            for run in runs { removed += try await settle(run.publicID, sessionID: run.sessionID, at: now, repositories) }
            return removed
        }
        for task in removed { await tasks.kept.removeContent(of: task) }
    }

    /// Judges the schedule's run once its task has completed, once: the task's `fetchResult`, the schedule's last run
    /// and latest version, `fetch.performed`. Returns the tasks whose content is to go: content that is no news
    /// (the latest version's bytes again), and versions past `keepVersions`.
    private func settle(
        _ publicID: String,
        sessionID: Int64,
        at now: Date,
        _ repositories: any Repositories
    ) async throws -> [TransferTask] {
        guard var schedule = try await repositories.fetchSchedules.find(publicID: publicID, sessionID: sessionID),
            let running = schedule.phase.runningTask,
            var task = try await repositories.tasks.find(sessionID: sessionID, taskIdentifier: running), task.state == .completed
        else { return [] }
        var machine = FetchScheduleStateMachine(schedule.phase)
        guard try machine.handle(.runEnded(taskIdentifier: running)) == .settleRun else { return [] }
        schedule.phase = machine.phase
        let outcome = FetchOutcome(of: task, latest: schedule.latest, at: now)
        task.fetchResult = outcome.result
        var removed: [TransferTask] = []
        if case .noData(duplicate: true) = outcome, Self.keptByService(task) {
            removed.append(task)
            task.transfer.updateDownload { $0.file = nil }
        }
        try await repositories.tasks.update(task)
        if case .newData(let version) = outcome {
            schedule.latest = version
            let versions = try await repositories.fetchSchedules.versions(fetchID: publicID, sessionID: sessionID)
            for old in versions.dropFirst(schedule.keepVersions) where Self.keptByService(old) {
                try await repositories.tasks.forgetContent(id: old.rowID)
                removed.append(old)
            }
        }
        let error: String? = if case .failed(let message) = outcome { message } else { nil }
        schedule.lastRun = FetchRun(result: outcome.result, taskIdentifier: running, performedAt: now, error: error)
        try await repositories.fetchSchedules.update(schedule)
        let performed = FetchPerformed(fetchId: publicID, result: outcome.result, taskIdentifier: running, latest: schedule.latest)
        try await eventLog.append(repositories, [EventLog.Entry(.fetchPerformed(performed), for: task)])
        return removed
    }

    /// Whether the run's content is the service's to remove: kept in the data directory or the content store, not
    /// an object of the tenant's own store (which later runs overwrite).
    private static func keptByService(_ task: TransferTask) -> Bool {
        task.transfer.download?.file?.object.map { $0.location.isContentStore } ?? true
    }
}
