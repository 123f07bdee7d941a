import Foundation
import Testing
import TransferdDomain
import TransferdTestSupport

/// A session's task counts and stored bytes are counters the database keeps as tasks are inserted and change: on
/// PostgreSQL a batch's rows are counted by one statement, grouped by session, and a change row by row. On the
/// suite's database.
@Suite struct TaskCountTests {
    @Test func aBatchOfTasksOfTwoSessionsIsCountedInEachAndAChangeMovesItsTask() async throws {
        try await SuiteStore.fresh { store in
            // act: one batch of five tasks, three started, across two sessions; then one completes with a file
            let now = Date()
            let (first, second) = try await store.write { repositories in
                let sessions = [
                    try await StoredRows.session("first", at: now, repositories),
                    try await StoredRows.session("second", at: now, repositories),
                ]
                let tasks = try await repositories.tasks.insert(
                    [(0, true), (0, false), (1, true), (1, true), (1, false)].enumerated().map { index, placed in
                        StoredRows.download(index + 1, in: sessions[placed.0], starts: placed.1, at: now)
                    }
                )
                #expect(tasks.map(\.taskIdentifier) == [1, 2, 3, 4, 5], "returned in order")
                var completed = tasks[2]
                completed.state = .completed
                completed.transfer.updateDownload { $0.file = StoredFile(size: 700, sha256: "") }
                try await repositories.tasks.update(completed)
                return (sessions[0], sessions[1])
            }

            // verify
            let details = try await store.read { try await $0.sessions.details(sessionIDs: [first, second]) }
            #expect(details[first]?.taskCounts == [.suspended: 1, .running: 1, .canceling: 0, .completed: 0])
            #expect(details[second]?.taskCounts == [.suspended: 1, .running: 1, .canceling: 0, .completed: 1])
            #expect(details[first]?.storedBytes == 0)
            #expect(details[second]?.storedBytes == 700)
        }
    }
}
