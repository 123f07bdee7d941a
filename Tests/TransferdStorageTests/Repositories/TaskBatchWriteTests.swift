import Foundation
import Testing
import TransferdDomain
import TransferdTestSupport

@testable import TransferdStorage

/// The writes a batch of transfer reports makes together (one statement on PostgreSQL, where the rows travel as one
/// JSON parameter): every column comes back as written, whatever a tenant put in it; a write guarded by the lease's
/// owner and the task's state changes only the tasks that pass the guard. On the suite's database.
@Suite struct TaskBatchWriteTests {
    /// Text a tenant controls, with what JSON and SQL must escape or could misread.
    static let hostile = [
        #"quote " backslash \ slash / \u0041 not an escape"#, "new\nline\ttab\r\u{1}\u{1F}", "'; DROP TABLE tasks; --",
        #"{"id": 1, "state": "completed"}"#, "naïve 日本 🚀", "",
    ]

    @Test func tasksWrittenTogetherReadBackAsTheyWereWritten() async throws {
        try await SuiteStore.fresh { store in
            let now = Date()
            let tasks = try await store.write { repositories in
                let session = try await StoredRows.session("batch", at: now, repositories)
                return try await repositories.tasks.insert(Self.hostile.indices.map { StoredRows.download($0 + 1, in: session, at: now) })
            }

            // act: every task changed at once, each differently
            let changed = tasks.enumerated().map { index, task in
                var task = task
                task.taskDescription = Self.hostile[index]
                task.priority = [0.1, 1e-5, 1, 0, 0.75, 0.5][index]
                task.state = index.isMultiple(of: 2) ? .suspended : .running
                task.nextAttemptAt = index == 0 ? nil : now.addingTimeInterval(Double(index))
                task.countOfBytesReceived = Int64(index) * 1_000_000_007
                return task
            }
            try await store.write { try await $0.tasks.update(changed) }

            // verify
            let read = try await store.read { repositories in
                var read: [TransferTask?] = []
                for task in changed { read.append(try await repositories.tasks.find(id: task.rowID)) }
                return read
            }
            for (expected, task) in zip(changed, read) {
                let task = try #require(task)
                #expect(task.taskDescription == expected.taskDescription)
                #expect(task.priority == expected.priority)
                #expect(task.state == expected.state)
                #expect(task.nextAttemptAt == StoredDate.stored(expected.nextAttemptAt))
                #expect(task.countOfBytesReceived == expected.countOfBytesReceived)
                #expect(task.originalRequest == expected.originalRequest)
            }
        }
    }

    @Test func aBatchWithATaskThatIsGoneWritesNothing() async throws {
        try await SuiteStore.fresh { store in
            let now = Date()
            let tasks = try await store.write { repositories in
                let session = try await StoredRows.session("gone", at: now, repositories)
                return try await repositories.tasks.insert([
                    StoredRows.download(1, in: session, at: now), StoredRows.download(2, in: session, at: now),
                ])
            }
            var (kept, gone) = (tasks[0], tasks[1])
            gone.id = 999_999
            kept.taskDescription = "changed"
            let (batch, keptID) = ([kept, gone], kept.rowID)

            // act
            await #expect(throws: StoreError.self) { try await store.write { try await $0.tasks.update(batch) } }

            // verify: the transaction rolled back
            #expect(try await store.read { try await $0.tasks.find(id: keptID)?.taskDescription } == nil)
        }
    }

    @Test func responsesAreRecordedOnlyForTheOwnersRunningTasks() async throws {
        try await SuiteStore.fresh { store in
            let now = Date()
            // setup: four tasks leased to i1 (one of them suspended since), one leased to i2
            let tasks = try await store.write { repositories in
                let session = try await StoredRows.session("responses", at: now, repositories)
                let tasks = try await repositories.tasks.insert((1...5).map { StoredRows.download($0, in: session, at: now) })
                let lease = { (owner: String) in TaskLease(owner: owner, expiresAt: now.addingTimeInterval(60)) }
                try await repositories.queue.lease(ids: tasks.prefix(4).map(\.rowID), lease("i1"), startedAt: now)
                try await repositories.queue.lease(ids: [tasks[4].rowID], lease("i2"), startedAt: now)
                var suspended = tasks[3]
                suspended.state = .suspended
                try await repositories.tasks.update(suspended)
                return tasks
            }
            let response = TransferResponse(statusCode: 206, headers: ["ETag": Self.hostile[0]])
            let start = ReceivedResponse.Start(offset: 10, expectedBytes: 100, resumability: .failure(.noValidator))
            let received = tasks.indices.map { index in
                ReceivedResponse(currentUrl: Self.hostile[index], response: response, start: index == 1 ? nil : start)
            }

            // act
            let recorded = try await store.write { repositories in
                try await repositories.progress.recordResponses(owner: "i1", zip(tasks, received).map { ($0.rowID, $1) })
            }

            // verify: tasks 1 to 3 (both shapes of response), not the suspended one nor i2's
            #expect(recorded == Dictionary(uniqueKeysWithValues: tasks.prefix(3).map { ($0.rowID, $0.taskIdentifier) }))
            let read = try await store.read { repositories in
                var read: [TransferTask?] = []
                for task in tasks { read.append(try await repositories.tasks.find(id: task.rowID)) }
                return read
            }
            for index in 0..<3 {
                let task = try #require(read[index])
                #expect(task.currentUrl == Self.hostile[index])
                #expect(task.response == response)
                #expect(task.transfer.download?.partialBytes == (index == 1 ? 0 : 10))
                #expect(task.transfer.download?.notResumableReason == (index == 1 ? nil : .noValidator))
            }
            #expect(read[3]?.response == nil)
            #expect(read[4]?.response == nil)
        }
    }

    @Test func leasesEndOnlyForTheirOwner() async throws {
        try await SuiteStore.fresh { store in
            let now = Date()
            let tasks = try await store.write { repositories in
                let session = try await StoredRows.session("leases", at: now, repositories)
                let tasks = try await repositories.tasks.insert((1...3).map { StoredRows.download($0, in: session, at: now) })
                try await repositories.queue.lease(
                    ids: [tasks[0].rowID, tasks[1].rowID],
                    TaskLease(owner: "i1", expiresAt: now + 60),
                    startedAt: now
                )
                try await repositories.queue.lease(ids: [tasks[2].rowID], TaskLease(owner: "i2", expiresAt: now + 60), startedAt: now)
                return tasks
            }

            // act
            let (released, workloads) = try await store.write { try await $0.queue.releaseLeases(ids: tasks.map(\.rowID), owner: "i1") }

            // verify: the session's workload read with them, its three tasks running
            #expect(Set(released.map(\.rowID)) == [tasks[0].rowID, tasks[1].rowID])
            #expect(released.allSatisfy { $0.lease == nil })
            #expect(workloads.mapValues { [$0.busy, $0.unfinished] } == [tasks[0].sessionId: [3, 3]])
            #expect(try await store.read { try await $0.tasks.find(id: tasks[2].rowID)?.lease?.owner } == "i2")
        }
    }
}
