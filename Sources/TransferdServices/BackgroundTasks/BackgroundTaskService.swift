import Foundation
import TransferdDomain

/// Finite-length background tasks (beginBackgroundTask): their clock, their end, and their deadlines. The state
/// machine decides; the task transitions complete the transfers an end or a deadline cancels.
package struct BackgroundTaskService: Sendable {
    let store: any Store
    let transitions: TaskTransitions
    /// The longest a background task is granted, in seconds.
    package let maximumDuration: Double

    package init(store: any Store, transitions: TaskTransitions, maximumDuration: Double) {
        self.store = store
        self.transitions = transitions
        self.maximumDuration = maximumDuration
    }

    var clock: any WallClock { transitions.clock }
    var eventLog: EventLog { transitions.eventLog }

    /// beginBackgroundTask: grants the duration asked, at most `maximumDuration` seconds, from now.
    package func begin(sessionID: Int64, name: String, duration: Double, expirationWarning: Double) async throws -> BackgroundTask {
        let task = BackgroundTask(
            publicID: UUID().uuidString.lowercased(),
            sessionID: sessionID,
            name: name,
            duration: duration,
            cap: maximumDuration,
            expirationWarning: expirationWarning,
            now: clock.now
        )
        return try await store.write { repositories in
            guard try await repositories.sessions.find(id: sessionID)?.state == .active else {
                throw DomainError.conflict("The session is not active and takes no background tasks.")
            }
            repositories.announce(.deadlines)
            return try await repositories.backgroundTasks.insert(task)
        }
    }

    /// The session's background task with this id, with its transfers.
    package func find(_ publicID: String, sessionID: Int64) async throws -> (BackgroundTask, [TransferTask]) {
        try await store.read { repositories in
            guard let task = try await repositories.backgroundTasks.find(publicID: publicID, sessionID: sessionID) else {
                throw DomainError.notFound("Background task `\(publicID)` does not exist in this session.")
            }
            return await (task, try repositories.tasks.transfers(ofBackgroundTask: publicID))
        }
    }

    /// The session's background tasks in the order they began, each with its transfers.
    package func list(sessionID: Int64) async throws -> [(BackgroundTask, [TransferTask])] {
        try await store.read { repositories in
            var listed: [(BackgroundTask, [TransferTask])] = []
            for backgroundTask in try await repositories.backgroundTasks.list(sessionID: sessionID) {
                listed.append((backgroundTask, try await repositories.tasks.transfers(ofBackgroundTask: backgroundTask.publicId)))
            }
            return listed
        }
    }

    /// endBackgroundTask: stops the clock; its transfers go on as ordinary tasks, or are cancelled.
    package func end(_ publicID: String, sessionID: Int64, cancelTasks: Bool) async throws -> (BackgroundTask, [TransferTask]) {
        let now = clock.now
        return try await store.write { repositories in
            guard let task = try await repositories.backgroundTasks.find(publicID: publicID, sessionID: sessionID) else {
                throw DomainError.notFound("Background task `\(publicID)` does not exist in this session.")
            }
            var machine = BackgroundTaskStateMachine(task)
            do {
                _ = try machine.handle(.end(cancelTasks: cancelTasks), at: now)
            } catch {
                throw DomainError.conflict("Background task `\(publicID)` is \(task.state.rawValue) already.")
            }
            try await repositories.backgroundTasks.update(machine.task)
            if cancelTasks {
                try await transitions.cancel(try repositories.tasks.transfers(ofBackgroundTask: publicID), .cancel(.init()), repositories)
            }
            return await (machine.task, try repositories.tasks.transfers(ofBackgroundTask: publicID))
        }
    }

    /// Writes `background_task.expiring` where the warning is due and expires what passed its deadline: its
    /// unfinished transfers complete at once with `backgroundTaskExpired` (with resume data from their last
    /// checkpoint where they can be continued), and their transfers are stopped.
    /// Returns when the next warning or deadline is due.
    package func processDeadlines() async throws -> Date? {
        let now = clock.now
        return try await store.write { repositories in
            var next: Date?
            for task in try await repositories.backgroundTasks.active() {
                var machine = BackgroundTaskStateMachine(task)
                let action = try machine.handle(.clockTicked(now: now), at: now)
                let expired = TaskStateMachine.Cancellation(error: .backgroundTaskExpired, produceResumeData: true)
                switch action {
                case .warn:
                    try await repositories.backgroundTasks.update(machine.task)
                    try await write(EventPayload.backgroundTaskExpiring, of: machine.task, at: now, repositories)
                case .expire(let warnFirst):
                    try await repositories.backgroundTasks.update(machine.task)
                    if warnFirst { try await write(EventPayload.backgroundTaskExpiring, of: machine.task, at: now, repositories) }
                    try await transitions.cancel(
                        try repositories.tasks.transfers(ofBackgroundTask: task.publicId),
                        .expire(expired),
                        repositories
                    )
                    try await write(EventPayload.backgroundTaskExpired, of: machine.task, at: now, repositories)
                case .none, .end, .complete:
                    break
                }
                if machine.task.state == .active {
                    let due = machine.task.warned ? machine.task.expiresAt : machine.task.warningAt
                    next = min(next ?? due, due)
                }
            }
            return next
        }
    }

    private func write(
        _ event: (BackgroundTaskTime) -> EventPayload,
        of task: BackgroundTask,
        at now: Date,
        _ repositories: any Repositories
    ) async throws {
        try await eventLog.append(repositories, sessionID: task.sessionId, event(BackgroundTaskTime(task, at: now)))
    }
}
