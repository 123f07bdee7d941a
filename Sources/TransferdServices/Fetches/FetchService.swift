import Foundation
import TransferdDomain

/// Background fetch: fetch schedules and their runs. A run falls due, becomes a download task of the session that
/// sends the latest version's validators, and is judged once the task completes (``FetchOutcome``), with
/// `fetch.performed` in the session's log. Starting a run and settling one are each one transaction that changes the
/// schedule only as it still is, so across instances each happens once; the state machine keeps runs from
/// overlapping.
package struct FetchService: Sendable {
    let store: any Store
    let tasks: TaskService
    let clock: any WallClock
    /// The most schedules a session may have.
    let maximumPerSession: Int

    package init(store: any Store, tasks: TaskService, clock: any WallClock, maximumPerSession: Int) {
        (self.store, self.tasks, self.clock, self.maximumPerSession) = (store, tasks, clock, maximumPerSession)
    }

    var eventLog: EventLog { tasks.eventLog }

    /// Creates a schedule in an active session, within the session's limit and the tenant's quota of schedules; its
    /// first run is due at once (or when its window opens).
    package func create(_ new: NewFetchSchedule, in session: Session) async throws -> FetchSchedule {
        let now = clock.now
        let schedule = FetchSchedule(
            publicId: "fetch_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20),
            sessionId: session.rowID,
            request: new.request,
            origin: new.origin,
            destination: new.destination,
            taskDescription: new.taskDescription,
            timing: new.timing,
            keepVersions: new.keepVersions,
            createdAt: now,
            nextRunAt: new.timing.firstRun(at: now, draw: .random(in: 0..<1))
        )
        let (sessionID, tenantID, limit, quotas) = (session.rowID, session.tenantId, maximumPerSession, tasks.quotas)
        return try await store.write { repositories in
            guard try await repositories.sessions.find(id: sessionID)?.state == .active else {
                throw DomainError.conflict("The session is not active and takes no fetch schedules.")
            }
            let count = try await repositories.fetchSchedules.count(sessionID: sessionID)
            guard count < limit else {
                throw DomainError.limitExceeded("The session has \(count) fetch schedules, the most a session may have.")
            }
            try quotas.admit([.fetches: 1], standing: try await repositories.standingCountingFetches(id: tenantID))
            repositories.announce(.fetches)
            return try await repositories.fetchSchedules.insert(schedule)
        }
    }

    /// The session's schedule with this id.
    package func find(_ publicID: String, sessionID: Int64) async throws -> FetchSchedule {
        try await store.read { try await Self.schedule(publicID, sessionID: sessionID, $0) }
    }

    /// The session's schedules in the order they were created.
    package func list(sessionID: Int64) async throws -> [FetchSchedule] {
        try await store.read { try await $0.fetchSchedules.list(sessionID: sessionID) }
    }

    /// Pauses, resumes or retimes a schedule. A new interval counts from now; a resumed schedule runs at its next slot
    /// (at once when slots passed while it was paused).
    package func update(_ publicID: String, sessionID: Int64, _ change: FetchScheduleChange) async throws -> FetchSchedule {
        let now = clock.now
        return try await store.write { repositories in
            var schedule = try await Self.schedule(publicID, sessionID: sessionID, repositories)
            var machine = FetchScheduleStateMachine(schedule.phase)
            var retime = false
            if let paused = change.paused {
                retime = try machine.handle(paused ? .pause : .resume) == .reschedule
            }
            schedule.phase = machine.phase
            if let interval = change.interval, interval != schedule.timing.interval {
                schedule.timing.interval = interval
                schedule.anchorAt = now
                schedule.nextRunAt = schedule.timing.nextRun(anchor: now, after: now, draw: .random(in: 0..<1))
            } else if retime {
                schedule.nextRunAt = min(
                    schedule.nextRunAt,
                    schedule.timing.nextRun(anchor: schedule.anchorAt, after: now, draw: .random(in: 0..<1))
                )
            }
            if let jitter = change.jitter { schedule.timing.jitter = jitter }
            if let window = change.window { schedule.timing.window = window }
            if let keepVersions = change.keepVersions { schedule.keepVersions = keepVersions }
            if let description = change.taskDescription { schedule.taskDescription = description }
            try await repositories.fetchSchedules.update(schedule)
            repositories.announce(.fetches)
            return schedule
        }
    }

    /// Removes a schedule. A run under way finishes as an ordinary task; the versions' tasks keep their content.
    package func delete(_ publicID: String, sessionID: Int64) async throws {
        try await store.write { repositories in
            let schedule = try await Self.schedule(publicID, sessionID: sessionID, repositories)
            try await repositories.fetchSchedules.delete(id: schedule.rowID)
        }
    }

    /// The task that keeps the latest version's content.
    package func latestVersion(of publicID: String, sessionID: Int64) async throws -> TransferTask {
        try await store.read { repositories in
            let schedule = try await Self.schedule(publicID, sessionID: sessionID, repositories)
            guard let latest = schedule.latest,
                let task = try await repositories.tasks.find(sessionID: sessionID, taskIdentifier: latest.taskIdentifier),
                task.transfer.download?.file != nil
            else {
                throw DomainError.notFound("Fetch schedule `\(publicID)` has no version with content.")
            }
            return task
        }
    }

    static func schedule(_ publicID: String, sessionID: Int64, _ repositories: any Repositories) async throws -> FetchSchedule {
        guard let schedule = try await repositories.fetchSchedules.find(publicID: publicID, sessionID: sessionID) else {
            throw DomainError.notFound("Fetch schedule `\(publicID)` does not exist in this session.")
        }
        return schedule
    }
}
