import Foundation
import Testing
import TransferdDomain
import TransferdTestSupport

/// A creation of a few tasks reserves their row ids with their identifiers, and on PostgreSQL their insert is held
/// and sent with the statement that follows (the creation's events): the transaction's writes keep their order, any
/// other statement sees what was held, and a rollback forgets it. On the suite's database.
@Suite struct HeldWriteTests {
    struct Refusal: Error {}

    @Test func heldTasksGoWithTheEventsAndAreSeenByAnyOtherStatement() async throws {
        try await SuiteStore.fresh { store in
            let now = Date()
            let session = try await store.write { try await StoredRows.session("held", at: now, $0) }
            let writes = { store.statistics?.statements[.write, default: 0] ?? 0 }

            // act: two tasks inserted, then their events appended; one more, then read back in the transaction
            let before = writes()
            let created = try await store.write { repositories in
                try await Self.create(2, in: session, at: now, repositories) { taken, index in taken.rowIDs?[index] }
            }
            let sent = writes() - before
            let appendAlone = writes()
            try await store.write { repositories in
                _ = try await repositories.events.append(
                    [
                        Event(
                            sessionId: session,
                            sequence: 0,
                            taskIdentifier: 1,
                            payload: .taskProgress(.init(bytesWritten: 1, totalBytesWritten: 1, totalBytesExpectedToWrite: -1)),
                            createdAt: now
                        )
                    ]
                )
            }
            let sentAlone = writes() - appendAlone
            let third = try await store.write { repositories in
                let taken = try #require(try await repositories.sessions.takeTaskIdentifiers(1, sessionID: session))
                var task = StoredRows.download(Int(taken.identifiers.lowerBound), in: session, at: now)
                task.id = taken.rowIDs?.first
                let inserted = try await repositories.tasks.insert([task])[0]
                return try await repositories.tasks.find(id: inserted.rowID)
            }

            // verify: every task there under its id, in identifier order, counted into its session; its events
            if store.isShared {
                #expect(created.map(\.rowID) == created.map(\.rowID).sorted() && created.count == 2)
                #expect(sent == 4, "BEGIN, the identifiers, the tasks with their events, COMMIT: \(sent)")
                #expect(sentAlone == 3, "BEGIN, the events, COMMIT, with nothing held: \(sentAlone)")
            }
            #expect(third?.taskIdentifier == 3)
            // (a write: the session's counters are read as identifiers are taken)
            let read = try await store.write { repositories in
                var found: [Int64?] = []
                for task in created { found.append(try await repositories.tasks.find(id: task.rowID)?.taskIdentifier) }
                return (
                    found,
                    try await repositories.events.list(sessionID: session, after: 0, taskIdentifier: nil, limit: 10).map(\.taskIdentifier),
                    try await repositories.sessions.takeTaskIdentifiers(1, sessionID: session)?.tasks
                )
            }
            #expect(read.0 == [1, 2])
            #expect(read.1 == [1, 2, 1])
            #expect(read.2 == 3)
        }
    }

    /// More held than one statement's 65,535 arguments hold: what does not fit beside the events goes first, in order.
    @Test func heldWritesBeyondOneStatementAreSentInOrder() async throws {
        try await SuiteStore.fresh { store in
            let now = Date()
            let session = try await store.write { try await StoredRows.session("many", at: now, $0) }
            let count = 3_000

            // act: 3,000 tasks with ids of their own (about 120,000 arguments), then their events
            _ = try await store.write { repositories in
                try await Self.create(count, in: session, at: now, repositories) { taken, index in
                    1_000_000 + taken.identifiers.lowerBound + Int64(index)
                }
            }

            // verify: every task (under its id, where the insert was held) and every event
            let read = try await store.read { repositories in
                (
                    try await repositories.tasks.list(sessionID: session, after: 0, state: nil, limit: count + 1).map(\.rowID),
                    try await repositories.events.list(sessionID: session, after: 0, taskIdentifier: nil, limit: count + 1).count
                )
            }
            #expect(read.0.count == count && read.1 == count)
            if store.isShared { #expect(read.0 == (1...Int64(count)).map { 1_000_000 + $0 }, "the tasks' ids as held") }
        }
    }

    @Test func aRollbackForgetsWhatWasHeld() async throws {
        try await SuiteStore.fresh { store in
            let now = Date()
            let session = try await store.write { try await StoredRows.session("forgotten", at: now, $0) }

            // act: a task held twice under one id (an insert that would fail, were it sent), then the transaction
            // refused before anything sends it
            await #expect(throws: Refusal.self) {
                try await store.write { repositories in
                    let taken = try #require(try await repositories.sessions.takeTaskIdentifiers(1, sessionID: session))
                    var task = StoredRows.download(Int(taken.identifiers.lowerBound), in: session, at: now)
                    task.id = taken.rowIDs?.first
                    _ = try await repositories.tasks.insert([task])
                    if task.id != nil { _ = try await repositories.tasks.insert([task]) }
                    throw Refusal()
                }
            }

            // verify: no task, its identifier taken again, and the store's next transactions as usual (the rollback
            // was sent: a connection left in the failed transaction would refuse them)
            for _ in 1...4 {
                let next = try await store.write { repositories in
                    try await repositories.sessions.takeTaskIdentifiers(1, sessionID: session)
                }
                #expect(next?.tasks == 0)
            }
            #expect(try await store.read { try await $0.tasks.list(sessionID: session, after: 0, state: nil, limit: 10) }.isEmpty)
        }
    }

    /// Takes `count` task identifiers of the session, inserts a download for each under the row id `id` gives it
    /// (nil: the insert's own), then appends their `task.created`.
    private static func create(
        _ count: Int,
        in session: Int64,
        at now: Date,
        _ repositories: any Repositories,
        id: (TakenTaskIdentifiers, Int) -> Int64?
    ) async throws -> [TransferTask] {
        let taken = try #require(try await repositories.sessions.takeTaskIdentifiers(count, sessionID: session))
        let tasks = try await repositories.tasks.insert(
            taken.identifiers.enumerated().map { index, identifier in
                var task = StoredRows.download(Int(identifier), in: session, at: now)
                task.id = id(taken, index)
                return task
            }
        )
        _ = try await repositories.events.append(
            tasks.map {
                Event(
                    sessionId: session,
                    sequence: 0,
                    taskIdentifier: $0.taskIdentifier,
                    payload: .taskCreated(StateChange(.suspended)),
                    createdAt: now
                )
            }
        )
        return tasks
    }
}
