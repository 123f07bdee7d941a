import Foundation
import Testing
import TransferdTestOrigins

/// A transfer that is over frees its worker at once: the next task starts while the end of the one before is still
/// being written. On PostgreSQL, where a claim does not wait for the writer (on SQLite both take the one writer's
/// turns, one after the other). A download publishes its file before its end is written (no transaction waits for
/// the disk), and an end that does not give the file to its task takes it back.
@Suite(.enabled(if: SuiteDatabase.postgresURL != nil, "needs PostgreSQL (TRANSFERD_TEST_DATABASE_URL)"))
struct EndingTransferTests {
    @Test func theNextTaskStartsWhileTheEndOfThePreviousOneWaits() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await OriginServer.with { origin in
            // No checkpoint meanwhile: one waiting for the session's row would hold the first transfer.
            try await TestService.with(dataDirectory: dataDirectory, workerConcurrency: 1, progressInterval: .seconds(600)) { api in
                // setup: one worker; the first download held by its origin, the second queued behind it
                try await api.createSession("handover")
                _ = try await api.createTask("handover", url: origin.url("/gated/first/200000"))
                _ = try await api.createTask("handover", url: origin.url("/files/1000?name=second"))
                try await waitUntil(timeout: .seconds(30)) { origin.requests.contains { $0.contains("/gated/first") } }
                // the session's row locked by another transaction, so that the first task's end waits
                let blocker = try await TestDatabase.OpenTransaction(dataDirectory: dataDirectory)
                try await blocker.lockSession("handover")
                do {
                    // act: the first download finishes
                    origin.open(gate: "first")

                    // verify: the second reaches the origin while the first's end waits
                    try await waitUntil(timeout: .seconds(30)) { origin.requests.contains { $0.contains("name=second") } }
                    #expect(try await api.task("handover", 1).state == "running", "the first task's end still waits")
                } catch {
                    try await blocker.end()
                    throw error
                }
                try await blocker.end()

                // verify: both complete once, in a log without gaps
                try await waitUntil(timeout: .seconds(30)) { try await api.session("handover").taskCounts["completed"] == 2 }
                let log = try await api.allEvents("handover")
                #expect(log.map(\.sequence) == Array(1...log.count))
                #expect(log.filter { $0.type == "task.completed" }.compactMap(\.taskIdentifier).sorted() == [1, 2])
            }
        }
    }

    @Test func aFilePublishedByAnAttemptWhoseLeaseWasTakenMeanwhileIsRemovedAndItsBytesKept() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await OriginServer.with { origin in
            try await TestService.with(dataDirectory: dataDirectory, workerConcurrency: 1, progressInterval: .seconds(600)) { api in
                // setup: a download held by its origin; its task's row leased to another instance by a transaction
                // that stays open, so that the download's end waits for it
                try await api.createSession("taken")
                let task = try await api.createTask("taken", url: origin.url("/gated/taken/200000"))
                try await waitUntil(timeout: .seconds(30)) { origin.requests.contains { $0.contains("/gated/taken") } }
                let rowID = try #require(try await TestDatabase(dataDirectory: dataDirectory).rows("SELECT id FROM tasks").first?.first)
                let (content, partial) = ("\(dataDirectory)/tasks/\(rowID)", "\(dataDirectory)/tasks/\(rowID).part")
                let other = try await TestDatabase.OpenTransaction(dataDirectory: dataDirectory)
                do {
                    try await other.lease(task: task.taskIdentifier, of: "taken", to: "another-instance")

                    // act: the download finishes and publishes its file while its end waits; the lease is taken
                    origin.open(gate: "taken")
                    try await waitUntil(timeout: .seconds(30)) { FileManager.default.fileExists(atPath: content) }
                    #expect(try await api.task("taken", task.taskIdentifier).state == "running", "the end waits")
                } catch {
                    try await other.end()
                    throw error
                }
                try await other.commit()

                // verify: the end is not recorded, the file it published is gone, and its bytes stay for the taker
                try await waitUntil(timeout: .seconds(30)) { !FileManager.default.fileExists(atPath: content) }
                #expect(try await api.task("taken", task.taskIdentifier).state == "running")
                #expect(try await api.allEvents("taken").allSatisfy { $0.type != "task.completed" })
                #expect((try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) == 200_000)
            }
        }
    }
}
