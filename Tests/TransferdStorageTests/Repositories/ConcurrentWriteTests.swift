import Dispatch
import Foundation
import Synchronization
import Testing
import TransferdDomain
import TransferdTestSupport

/// Two instances' writes to one row: the second waits for the first and changes what it committed, so that neither
/// change is lost. Writes run under READ COMMITTED on PostgreSQL, where a row read to be changed must be locked
/// (`SQLConnection.rowLock`): read without the lock, the second write would write back the row as it was before the
/// first committed. On the suite's database, with two stores over it as two instances have.
@Suite struct ConcurrentWriteTests {
    @Test func aWriteChangesTheRowAnotherCommittedSinceNotTheOneItFirstSaw() async throws {
        let dataDirectory = DataDirectories.temporary()
        let databaseURL = SuiteDatabase.url(forDataDirectory: dataDirectory)
        try await SuiteStore.with(dataDirectory: dataDirectory, databaseURL: databaseURL) { first in
            try await SuiteStore.with(dataDirectory: dataDirectory, databaseURL: databaseURL) { second in
                // setup: a task
                let now = Date()
                let id = try await StoredRows.queuedDownload(in: "rows", at: now, first)

                // act: the first instance reads the task and, before it commits its change, the second changes the
                // task too. The first gives the second a second to read the row before it commits: a read that
                // does not wait for it is the lost update this test is about.
                let (holding, secondRead) = (AsyncStream.makeStream(of: Void.self), AsyncStream.makeStream(of: Void.self))
                let secondReadFirst = Mutex(false)
                let firstWrite = Task {
                    try await first.write { repositories in
                        var task = try await #require(try repositories.tasks.find(id: id))
                        holding.continuation.yield()
                        let readFirst = await withTaskGroup(of: Bool.self) { group in
                            group.addTask {
                                for await _ in secondRead.stream { return true }
                                return false
                            }
                            group.addTask {
                                try? await Task.sleep(for: .seconds(1))
                                return false
                            }
                            defer { group.cancelAll() }
                            return await group.next() ?? false
                        }
                        secondReadFirst.withLock { $0 = readFirst }
                        task.taskDescription = "first"
                        try await repositories.tasks.update(task)
                    }
                }
                for await _ in holding.stream { break }
                try await second.write { repositories in
                    var task = try await #require(try repositories.tasks.find(id: id))
                    secondRead.continuation.yield()
                    task.priority = 0.9
                    try await repositories.tasks.update(task)
                }
                try await firstWrite.value

                // verify: the second read the task once the first had committed, and both changes are there
                #expect(!secondReadFirst.withLock { $0 }, "the second write read the row while the first held it")
                let task = try #require(try await first.read { try await $0.tasks.find(id: id) })
                #expect(task.taskDescription == "first")
                #expect(task.priority == 0.9)
            }
        }
    }
}
