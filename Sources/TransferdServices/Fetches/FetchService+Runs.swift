import Foundation
import TransferdDomain

extension FetchService {
    /// The most runs started or settled in one transaction each before the clock looks again.
    static let batch = 100

    /// Settles the runs whose tasks completed, then starts the runs that are due; returns when the next run falls due.
    package func processRuns() async throws -> Date? {
        let now = clock.now
        while true {
            let ended = try await store.read { try await $0.fetchSchedules.endedRuns(limit: Self.batch) }
            for run in ended { try await settle(run.publicID, sessionID: run.sessionID, at: now) }
            if ended.count < Self.batch { break }
        }
        while true {
            let due = try await store.read { try await $0.fetchSchedules.due(at: now, limit: Self.batch) }
            for run in due { try await start(run.publicID, sessionID: run.sessionID, at: now) }
            if due.count < Self.batch { break }
        }
        return try await store.read { try await $0.fetchSchedules.nextRunAt() }
    }

    /// Starts the schedule's run if it is still due and has none under way: a download task conditional on the
    /// latest version, created with the schedule's next run time in one transaction. A session that refuses the task
    /// (a limit, a quota) makes the run `failed`.
    func start(_ publicID: String, sessionID: Int64, at now: Date) async throws {
        try await store.write { [tasks, eventLog] repositories in
            guard var schedule = try await repositories.fetchSchedules.find(publicID: publicID, sessionID: sessionID),
                schedule.nextRunAt <= now
            else { return }
            var machine = FetchScheduleStateMachine(schedule.phase)
            guard try machine.handle(.due) == .startRun else { return }
            schedule.nextRunAt = schedule.timing.nextRun(anchor: schedule.anchorAt, after: now, draw: .random(in: 0..<1))
            let newTask = try await run(of: schedule, repositories)
            do {
                let created = try await repositories.isolated {
                    try await tasks.insert([newTask], sessionID: sessionID, itemsIn: nil, repositories)
                }
                _ = try machine.handle(.runStarted(taskIdentifier: created[0].taskIdentifier))
                schedule.phase = machine.phase
            } catch let refusal as DomainError {
                schedule.lastRun = FetchRun(result: .failed, taskIdentifier: nil, performedAt: now, error: refusal.detail)
                let performed = FetchPerformed(fetchId: publicID, result: .failed, taskIdentifier: nil, latest: schedule.latest)
                try await eventLog.append(repositories, sessionID: sessionID, .fetchPerformed(performed))
            }
            try await repositories.fetchSchedules.update(schedule)
        }
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

    /// Judges the schedule's run once its task has completed, once: the task's `fetchResult`, the schedule's last run
    /// and latest version, `fetch.performed`; content that is no news (the latest version's bytes again) or that
    /// falls past `keepVersions` is removed after the commit.
    func settle(_ publicID: String, sessionID: Int64, at now: Date) async throws {
        let removed: [TransferTask] = try await store.write { [eventLog] repositories in
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
        for task in removed { await tasks.kept.removeContent(of: task) }
    }

    /// Whether the run's content is the service's to remove: kept in the data directory or the content store, not
    /// an object of the tenant's own store (which later runs overwrite).
    private static func keptByService(_ task: TransferTask) -> Bool {
        task.transfer.download?.file?.object.map { $0.location.isContentStore } ?? true
    }
}
