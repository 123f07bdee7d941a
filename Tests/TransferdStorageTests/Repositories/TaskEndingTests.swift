import Foundation
import Testing
import TransferdDomain
import TransferdTestSupport

/// The ends of transfers are written in one statement outside any transaction (``TaskEnding``), on PostgreSQL, from
/// their tasks as their leases left them, or as one statement read them again: the tasks' rows with their leases
/// ended, the session's events and their deliveries, and `session.events_finished` when the statement finds the
/// session left without busy tasks. It writes nothing once what it was worked out from has changed: a task's row
/// (any write of it), its lease, or the session's state. SQLite ends them in its writer's transaction instead. On the
/// suite's database.
@Suite struct TaskEndingTests {
    @Test func anEndIsOneReadAndOneStatement() async throws {
        try await SuiteStore.fresh { store in
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
            let ending = Self.completion(of: basis)
            let events = try await store.alone { try await $0.tasks.end(ending) }
            let sent = statements() - before

            // verify: the read and one statement, without BEGIN or COMMIT; the session keeps a busy task
            #expect(sent == 2, "the read and the end: \(sent)")
            #expect(basis.session?.rowID == session)
            let written = try #require(events ?? nil)
            #expect(written.map(\.sequence) == [1] && written.map(\.type) == [.taskCompleted])
            let stored = try await store.read { repositories in
                (
                    try await repositories.tasks.find(id: tasks[0]),
                    try await repositories.queue.workload(sessionID: session),
                    try await repositories.deliveries.list(sessionID: session, status: .pending).map(\.eventId)
                )
            }
            #expect(stored.0?.state == .completed && stored.0?.lease == nil)
            #expect(stored.1?.busy == 1 && stored.1?.unfinished == 1)
            #expect(stored.2 == written.map(\.id))
        }
    }

    /// An end from the task as its lease left it: the claim read the row with its revision, and the lease answers
    /// the revision it left, so nothing is read again: one statement. The last busy task's end finds the session idle
    /// and appends `session.events_finished`.
    @Test func anEndFromTheLeaseIsOneStatement() async throws {
        try await SuiteStore.fresh { store in
            guard store.isShared else { return }
            let session = try await Self.queuedDownload(store, "leased")
            let (read, revision) = try await Self.claim(store)
            var task = try #require(read)
            task.lease = TaskLease(owner: "i1", expiresAt: Self.now + 60)
            task.startedAt = Self.now
            let basis = TaskEnding.Basis(task: task, revision: try #require(revision), session: nil)
            let statements = { store.statistics?.statements[.write, default: 0] ?? 0 }

            // act: the end, from what the claim knows
            let before = statements()
            let events = try await store.alone { try await $0.tasks.end(Self.completion(of: basis)) }
            let sent = statements() - before

            // verify: one statement; the task completed as the claim read it, and the session went idle
            #expect(sent == 1, "the end: \(sent)")
            let written = try #require(events ?? nil)
            #expect(written.map(\.type) == [.taskCompleted, .sessionEventsFinished] && written.map(\.sequence) == [1, 2])
            let id = task.rowID
            let stored = try #require(try await store.read { try await $0.tasks.find(id: id) })
            #expect(stored.state == .completed && stored.lease == nil && stored.startedAt != nil)
            #expect(try await store.read { try await $0.sessions.find(id: session)?.lastSequence } == 2)
        }
    }

    /// A task changed between a claim's read and its lease (here its priority) is not leased: the claim read a row
    /// that is no longer there, and would run, then write back, what it read.
    @Test func aTaskChangedSinceTheClaimReadItIsNotLeased() async throws {
        try await SuiteStore.fresh { store in
            guard store.isShared else { return }
            _ = try await Self.queuedDownload(store, "patched")

            // act: a patch between the claim's read and its lease
            let (read, revision) = try await Self.claim(store) { task in
                try await store.write { repositories in
                    var patched = task
                    patched.priority = 0.9
                    try await repositories.tasks.update(patched)
                }
            }

            // verify
            let task = try #require(read)
            #expect(revision == nil)
            let stored = try await store.read { try await $0.tasks.find(id: task.rowID) }
            #expect(stored?.lease == nil && stored?.priority == 0.9)
        }
    }

    /// Each change that makes the end worked out wrong: the task's row written since it was read (a checkpoint),
    /// its lease taken over, or the session invalidated.
    @Test(arguments: ["checkpoint", "lease", "invalidated"])
    func anEndWorkedOutFromWhatChangedWritesNothing(change: String) async throws {
        try await SuiteStore.fresh { store in
            guard store.isShared else { return }
            let (session, tasks) = try await Self.twoLeasedDownloads(store, subscribed: false)
            let bases = try await store.lookup { try await $0.tasks.endingBases(ids: [tasks[0]], owner: "i1") }
            let basis = try #require(bases.first)
            try await store.write { repositories in
                switch change {
                case "checkpoint":
                    _ = try await repositories.progress.recordProgress(
                        id: tasks[0],
                        owner: "i1",
                        received: 10,
                        expected: 20,
                        partialBytes: 10,
                        keptRanges: nil,
                        objectUpload: nil
                    )
                case "lease":
                    try await repositories.queue.releaseLease(id: tasks[0])
                    try await repositories.queue.lease(ids: [tasks[0]], TaskLease(owner: "i2", expiresAt: Date() + 60), startedAt: Date())
                default:
                    var stored = try #require(try await repositories.sessions.find(id: session))
                    stored.state = .invalidating
                    try await repositories.sessions.updateState(of: stored)
                }
            }
            let sequence = try await store.read { try await $0.sessions.find(id: session)?.lastSequence }

            // act
            let events = try await store.alone { try await $0.tasks.end(Self.completion(of: basis)) }

            // verify: run, and refused: the task still running, no sequence taken
            #expect(events.map { $0 == nil } == true)
            let (task, last) = try await store.read { repositories in
                (try await repositories.tasks.find(id: tasks[0]), try await repositories.sessions.find(id: session)?.lastSequence)
            }
            #expect(task?.state == .running)
            #expect(last == sequence)
        }
    }

    /// Whether an end leaves its session idle is the statement's to see: the session's other busy task completed
    /// after the end was worked out, so the end appends `session.events_finished` after its own events.
    @Test func anEndThatLeavesItsSessionIdleFinishesItsEvents() async throws {
        try await SuiteStore.fresh { store in
            guard store.isShared else { return }
            let (session, tasks) = try await Self.twoLeasedDownloads(store, subscribed: true)
            let basis = try #require(try await store.lookup { try await $0.tasks.endingBases(ids: [tasks[0]], owner: "i1") }.first)
            try await store.write { repositories in
                try await repositories.queue.releaseLease(id: tasks[1])
                var other = try #require(try await repositories.tasks.find(id: tasks[1]))
                other.state = .completed
                try await repositories.tasks.update(other)
            }

            // act
            let events = try await store.alone { try await $0.tasks.end(Self.completion(of: basis)) }

            // verify: both events, numbered in order, each with its delivery
            let written = try #require(events ?? nil)
            #expect(written.map(\.type) == [.taskCompleted, .sessionEventsFinished] && written.map(\.sequence) == [1, 2])
            let delivered = try await store.read { try await $0.deliveries.list(sessionID: session, status: .pending).map(\.eventId) }
            #expect(delivered == written.map(\.id))
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
            try await repositories.queue.lease(ids: tasks, TaskLease(owner: "i1", expiresAt: now + 60), startedAt: now)
            return (session, tasks)
        }
    }

    /// The end of the download `basis` knows: completed, with `task.completed`, and `session.events_finished` if it
    /// leaves the session idle.
    private static func completion(of basis: TaskEnding.Basis) -> TaskEnding {
        var task = basis.task
        task.lease = nil
        task.state = .completed
        return TaskEnding(
            sessionID: task.sessionId,
            owner: "i1",
            tasks: [(task, basis.revision)],
            events: [(task.taskIdentifier, .taskCompleted(Completion(error: nil, metrics: nil)))],
            eventsIfIdle: [(nil, .sessionEventsFinished)],
            leavingBusy: 1,
            createdAt: Date(),
            traceparent: nil
        )
    }

    private static let now = Date()

    /// A session with one queued download; returns the session's row id.
    private static func queuedDownload(_ store: any Store, _ identifier: String) async throws -> Int64 {
        try await store.write { repositories in
            let session = try await StoredRows.session(identifier, at: now, repositories)
            _ = try await repositories.tasks.insert(StoredRows.download(1, in: session, at: now))
            return session
        }
    }

    /// A claim by "i1" of the one queued task: its read, `meanwhile` with the task read, then its lease. Returns the
    /// task as read, and its row's revision once leased (nil: not leased).
    private static func claim(
        _ store: any Store,
        meanwhile: @escaping @Sendable (TransferTask) async throws -> Void = { _ in }
    ) async throws -> (TransferTask?, String?) {
        try await store.claim { repositories in
            let (_, heads) = try await repositories.queue.claimable(dueAfter: now, leasesAt: now, owner: "i1", ending: [], depth: 4)
            guard let head = heads.first else { return (nil, nil) }
            try await meanwhile(head.task)
            let leased = try await repositories.queue.lease([head.revision], TaskLease(owner: "i1", expiresAt: now + 60), startedAt: now)
            return (head.task, leased.first?.revision)
        }
    }
}
