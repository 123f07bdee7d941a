import Dispatch
import Foundation
import Synchronization
import Testing
import TransferdDomain

@testable import transferd

/// Two instances' writes to one row: the second waits for the first and changes what it committed, so that neither
/// change is lost. Writes run under READ COMMITTED on PostgreSQL, where a row read to be changed must be locked
/// (`SQLConnection.rowLock`): read without the lock, the second write would write back the row as it was before the
/// first committed. On the suite's database, with two stores over it as two instances have.
@Suite struct ConcurrentWriteTests {
    @Test func aWriteChangesTheRowAnotherCommittedSinceNotTheOneItFirstSaw() async throws {
        let dataDirectory = TestService.temporaryDataDirectory()
        let databaseURL = TestService.databaseURL(forDataDirectory: dataDirectory)
        try await OpenedStore.with(dataDirectory: dataDirectory, databaseURL: databaseURL) { first in
            try await OpenedStore.with(dataDirectory: dataDirectory, databaseURL: databaseURL) { second in
                // setup: a task
                let now = Date()
                let id = try await first.write { repositories in
                    try repositories.tasks.insert(
                        StoredRows.download(1, in: try StoredRows.session("rows", at: now, repositories), at: now)
                    ).rowID
                }

                // act: the first instance reads the task and, before it commits its change, the second changes the
                // task too. The first gives the second a second to read the row before it commits: a read that
                // does not wait for it is the lost update this test is about.
                let (holding, secondRead) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
                let secondReadFirst = Mutex(false)
                let firstWrite = Task {
                    try await first.write { repositories in
                        var task = try #require(try repositories.tasks.find(id: id))
                        holding.signal()
                        secondReadFirst.withLock { $0 = secondRead.wait(timeout: .now() + 1) == .success }
                        task.taskDescription = "first"
                        try repositories.tasks.update(task)
                    }
                }
                await Task.detached { holding.wait() }.value
                try await second.write { repositories in
                    var task = try #require(try repositories.tasks.find(id: id))
                    secondRead.signal()
                    task.priority = 0.9
                    try repositories.tasks.update(task)
                }
                try await firstWrite.value

                // verify: the second read the task once the first had committed, and both changes are there
                #expect(!secondReadFirst.withLock { $0 }, "the second write read the row while the first held it")
                let task = try #require(try await first.read { try $0.tasks.find(id: id) })
                #expect(task.taskDescription == "first")
                #expect(task.priority == 0.9)
            }
        }
    }
}
