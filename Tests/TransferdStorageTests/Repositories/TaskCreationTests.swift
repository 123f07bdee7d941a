import Foundation
import Testing
import TransferdDomain
import TransferdTestSupport

/// Tasks that need nothing read first are created in one statement outside any transaction (``TaskCreation``), on
/// PostgreSQL: their identifiers and their events' sequences follow what the session had, their events are queued
/// for its subscriber as it filters them, and a creation the session's limits or its tenant's quotas refuse writes
/// nothing. SQLite creates them in its writer's transaction instead. On the suite's database.
@Suite struct TaskCreationTests {
    @Test func tasksTheirEventsAndTheirDeliveriesAreOneStatement() async throws {
        try await SuiteStore.fresh { store in
            // setup: a session with an event already, and a subscriber that takes task.resumed alone
            let now = Date()
            let session = try await store.write { repositories in
                let session = try await StoredRows.session("created", at: now, repositories)
                try await repositories.webhooks.save(
                    WebhookSubscription(
                        sessionId: session,
                        url: "http://hook.test/",
                        eventTypes: [.taskResumed],
                        secret: .generate(),
                        state: .healthy,
                        createdAt: now
                    )
                )
                _ = try await repositories.events.append(
                    [Event(sessionId: session, sequence: 0, payload: .sessionEventsFinished, createdAt: now)]
                )
                return session
            }
            let writes = { store.statistics?.statements[.write, default: 0] ?? 0 }

            // act: a suspended download and a running one
            let before = writes()
            let written = try await store.alone { repositories in
                try await repositories.tasks.create(Self.creation([false, true], in: session, at: now))
            }
            let sent = writes() - before

            // verify: on PostgreSQL, one statement wrote both tasks, their three events and the one delivery the filter takes
            guard store.isShared else {
                #expect(written == nil, "SQLite creates in its writer's transaction")
                return
            }
            let created = try #require(written ?? nil)
            #expect(sent == 1, "one statement, without BEGIN or COMMIT: \(sent)")
            #expect(created.tasks.map(\.taskIdentifier) == [1, 2])
            #expect(created.tasks.map(\.rowID) == created.tasks.map(\.rowID).sorted())
            #expect(created.events.map(\.sequence) == [2, 3, 4])
            #expect(created.events.map(\.type) == [.taskCreated, .taskCreated, .taskResumed])
            #expect(created.events.map(\.taskIdentifier) == [1, 2, 2])
            #expect(created.queuedDelivery)
            let stored = try await store.read { repositories in
                (
                    try await repositories.tasks.list(sessionID: session, after: 0, state: nil, limit: 10).map(\.state),
                    try await repositories.events.list(sessionID: session, after: 0, taskIdentifier: nil, limit: 10).map(\.id),
                    try await repositories.deliveries.list(sessionID: session, status: .pending).map(\.eventId),
                    try await repositories.queue.workload(sessionID: session)
                )
            }
            #expect(stored.0 == [.suspended, .running])
            #expect(stored.1.dropFirst() == created.events.map(\.id)[...])
            #expect(stored.2 == [created.events[2].id])
            #expect(stored.3?.unfinished == 2 && stored.3?.busy == 1)
        }
    }

    /// Each refusal the transaction that follows would explain: the session's limit, a quota of the tenant's, or a
    /// session no longer active.
    @Test(arguments: ["session limit", "queued tasks", "stored bytes", "invalidated"])
    func aRefusedCreationWritesNothing(refusal: String) async throws {
        try await SuiteStore.fresh { store in
            guard store.isShared else { return }
            let now = Date()
            let session = try await store.write { repositories in
                let session = try await StoredRows.session("refusing", at: now, repositories)
                _ = try await repositories.tasks.insert(StoredRows.download(1, in: session, at: now))
                _ = try await repositories.sessions.takeTaskIdentifiers(1, sessionID: session)
                if refusal == "invalidated", var stored = try await repositories.sessions.find(id: session) {
                    stored.state = .invalidated
                    try await repositories.sessions.updateState(of: stored)
                }
                return session
            }
            let quota =
                switch refusal {
                case "queued tasks": TenantQuota(queuedTasks: 2)
                case "stored bytes": TenantQuota(storedBytes: 0)
                default: TenantQuota()
                }

            // act: two more tasks (where the session may hold two, for its limit)
            let creation = Self.creation([true, true], in: session, at: now, quota: quota, limit: refusal == "session limit" ? 2 : 10)
            let written = try await store.alone { try await $0.tasks.create(creation) }

            // verify: nothing written, no identifier taken
            #expect(written.map { $0 == nil } == true, "run, and refused")
            let (tasks, events, taken) = try await store.write { repositories in
                (
                    try await repositories.tasks.list(sessionID: session, after: 0, state: nil, limit: 10).count,
                    try await repositories.events.list(sessionID: session, after: 0, taskIdentifier: nil, limit: 10).count,
                    try await repositories.sessions.find(id: session)?.lastTaskIdentifier
                )
            }
            #expect(tasks == 1 && events == 0 && taken == 1)
        }
    }

    /// A batch of more than a few tasks plans and parses faster in steps, in a transaction.
    @Test func aLargerBatchIsLeftToATransaction() async throws {
        try await SuiteStore.fresh { store in
            let now = Date()
            let session = try await store.write { try await StoredRows.session("batch", at: now, $0) }
            let creation = Self.creation(Array(repeating: false, count: 17), in: session, at: now, limit: 100)
            let written = try await store.alone { try await $0.tasks.create(creation) }
            #expect(written.flatMap { $0 } == nil)
            #expect(try await store.read { try await $0.tasks.list(sessionID: session, after: 0, state: nil, limit: 20) }.isEmpty)
        }
    }

    /// A creation of downloads, starting or not, for a session that may hold `limit` tasks.
    private static func creation(
        _ starts: [Bool],
        in session: Int64,
        at now: Date,
        quota: TenantQuota = TenantQuota(),
        limit: Int = 2
    ) -> TaskCreation {
        TaskCreation(
            sessionID: session,
            tasks: starts.map { StoredRows.download(0, in: session, starts: $0, at: now) },
            events: starts.map(TaskCreation.events(starting:)),
            admission: CreationAdmission(count: starts.count, needsStorage: true, maximumTasksPerSession: limit, defaultQuota: quota),
            createdAt: now,
            traceparent: nil
        )
    }
}
