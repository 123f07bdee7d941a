import Foundation
import Testing
import TransferdDomain

@testable import transferd

/// The ends of transfers are written in one statement outside any transaction (``TaskEnding``), on PostgreSQL, from
/// their tasks and session as one statement read them: the tasks' rows with their leases ended, the session's events
/// and their deliveries. It writes nothing once what it was worked out from has changed: a task's row (any write of
/// it), its lease, the session's state, or whether the session keeps busy tasks. SQLite ends them in its writer's
/// transaction instead. On the suite's database.
@Suite struct TaskEndingTests {
    @Test func anEndIsOneReadAndOneStatement() async throws {
        try await OpenedStore.onSuiteDatabase { store in
            let (session, tasks) = try await Self.twoLeasedDownloads(store, subscribed: true)
            let statements = { store.statistics?.statements[.write, default: 0] ?? 0 }

            // act: the first download completes; the other still runs
            let before = statements()
            let bases = try await store.lookup(counted: .write) { try await $0.tasks.endingBases(ids: [tasks[0]], owner: "i1") }
            guard store.isShared else {
                #expect(bases.isEmpty, "SQLite ends in its writer's transaction")
                return
            }
            let basis = try #require(bases.first)
            let ending = Self.completion(of: basis, staysBusy: true)
            let events = try await store.alone { try await $0.tasks.end(ending) }
            let sent = statements() - before

            // verify: the read and one statement, without BEGIN or COMMIT
            #expect(sent == 2, "the read and the end: \(sent)")
            #expect(basis.workload == SessionWorkload(state: .active, cancelsTasks: false, busy: 2, unfinished: 2))
            #expect(basis.session.rowID == session)
            let written = try #require(events ?? nil)
            #expect(written.map(\.sequence) == [1] && written.map(\.type) == [.taskCompleted])
            let stored = try await store.read { repositories in
                (
                    try await repositories.tasks.find(id: tasks[0]),
                    try await repositories.tasks.workload(sessionID: session),
                    try await repositories.deliveries.list(sessionID: session, status: .pending).map(\.eventId)
                )
            }
            #expect(stored.0?.state == .completed && stored.0?.lease == nil)
            #expect(stored.1?.busy == 1 && stored.1?.unfinished == 1)
            #expect(stored.2 == written.map(\.id))
        }
    }

    /// Each change that makes the end worked out wrong: the task's row written since it was read (a checkpoint),
    /// its lease taken over, the session's last other busy task ended (so the end would leave it idle without
    /// `session.events_finished`), or the session invalidated.
    @Test(arguments: ["checkpoint", "lease", "idle", "invalidated"])
    func anEndWorkedOutFromWhatChangedWritesNothing(change: String) async throws {
        try await OpenedStore.onSuiteDatabase { store in
            guard store.isShared else { return }
            let (session, tasks) = try await Self.twoLeasedDownloads(store, subscribed: false)
            let bases = try await store.lookup { try await $0.tasks.endingBases(ids: [tasks[0]], owner: "i1") }
            let basis = try #require(bases.first)
            try await store.write { repositories in
                switch change {
                case "checkpoint":
                    _ = try await repositories.tasks.recordProgress(id: tasks[0], owner: "i1", received: 10, expected: 20, partialBytes: 10)
                case "lease":
                    try await repositories.tasks.releaseLease(id: tasks[0])
                    try await repositories.tasks.lease(ids: [tasks[0]], TaskLease(owner: "i2", expiresAt: Date() + 60), startedAt: Date())
                case "idle":
                    try await repositories.tasks.releaseLease(id: tasks[1])
                    var other = try #require(try await repositories.tasks.find(id: tasks[1]))
                    other.state = .completed
                    try await repositories.tasks.update(other)
                default:
                    var stored = try #require(try await repositories.sessions.find(id: session))
                    stored.state = .invalidating
                    try await repositories.sessions.updateState(of: stored)
                }
            }
            let sequence = try await store.read { try await $0.sessions.find(id: session)?.lastSequence }

            // act
            let events = try await store.alone { try await $0.tasks.end(Self.completion(of: basis, staysBusy: true)) }

            // verify: run, and refused: the task still running, no sequence taken
            #expect(events.map { $0 == nil } == true)
            let (task, last) = try await store.read { repositories in
                (try await repositories.tasks.find(id: tasks[0]), try await repositories.sessions.find(id: session)?.lastSequence)
            }
            #expect(task?.state == .running)
            #expect(last == sequence)
            if change == "idle" {
                // worked out from the session as it is now, the end is written
                let idle = try await store.alone { try await $0.tasks.end(Self.completion(of: basis, staysBusy: false)) }
                #expect(idle.map { $0 != nil } == true)
            }
        }
    }

    /// A session with two running downloads leased to "i1", and a subscriber that takes every event if `subscribed`;
    /// returns it and the downloads' row ids.
    private static func twoLeasedDownloads(_ store: any Store, subscribed: Bool) async throws -> (Int64, [Int64]) {
        let now = Date()
        return try await store.write { repositories in
            let session = try await StoredRows.session("ending", at: now, repositories)
            if subscribed {
                try await repositories.webhooks.save(
                    WebhookSubscription(sessionId: session, url: "http://hook.test/", secret: .generate(), state: .healthy, createdAt: now)
                )
            }
            var tasks: [Int64] = []
            for number in 1...2 {
                tasks.append(try await repositories.tasks.insert(StoredRows.download(number, in: session, at: now)).rowID)
            }
            try await repositories.tasks.lease(ids: tasks, TaskLease(owner: "i1", expiresAt: now + 60), startedAt: now)
            return (session, tasks)
        }
    }

    /// The end of the download `basis` read: completed, with `task.completed`.
    private static func completion(of basis: TaskEnding.Basis, staysBusy: Bool) -> TaskEnding {
        var task = basis.task
        task.lease = nil
        task.state = .completed
        return TaskEnding(
            sessionID: task.sessionId,
            owner: "i1",
            tasks: [(task, basis.revision)],
            events: [(.taskCompleted, task.taskIdentifier, EventData(state: .completed))],
            leavingBusy: 1,
            staysBusy: staysBusy,
            createdAt: Date(),
            traceparent: nil
        )
    }
}
