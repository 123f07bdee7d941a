import Foundation
import Testing
import TransferdTestOrigins

/// `kill -9` in the middle of many downloads: the next start continues each from its flushed checkpoint.
@Suite struct CrashRecoveryTests {
    @Test func killNineMidwayLosesNoDownloadAndCompletesEachExactlyOnce() async throws {
        let count = 50
        let size = 3_000_000
        try await OriginServer.with { origin in
            let dataDirectory = DataDirectories.temporary()

            // setup: 50 throttled downloads in a real process, 16 at a time, the origin holding every answer until all
            // are created: on a loaded machine creating 50 took longer than the first downloads did, and they had
            // finished, or had too few left under way, by the time the test looked for checkpoints
            let first = try await ServiceProcess.start(dataDirectory: dataDirectory)
            defer { first.stopIfRunning() }
            try await first.api.createSession("crash", configuration: #"{"maximumConnectionsPerHost": 16}"#)
            for index in 1...count {
                _ = try await first.api.createTask(
                    "crash",
                    url: origin.url("/files/\(size)?name=c\(index)&faults=0&bytesPerSecond=1000000&hold=created")
                )
            }
            origin.open(gate: "created")
            let database = TestDatabase(dataDirectory: dataDirectory)
            try await waitUntil(timeout: .seconds(60)) {
                // Under way with bytes checkpointed, as the database has them: the API's live counters run ahead of the
                // checkpoints, and on a loaded machine the test killed a process whose checkpoints were not written yet.
                // Each with a second of its transfer still to go: on a loaded machine, transfers past 2 MB (of 3)
                // had finished by the time the kill landed, and left no checkpoint to continue from.
                try await database.checkpoints().values.count { (1_000_000..<2_000_000).contains($0) } >= 4
            }

            // act
            try await first.kill()
            // What the crash left: the flushed checkpoints the next start must continue from, to the byte.
            let checkpoints = try await database.checkpoints()
            let second = try await ServiceProcess.start(dataDirectory: dataDirectory)
            defer { second.stopIfRunning() }
            try await waitUntil(timeout: .seconds(180)) {
                try await second.api.tasks("crash").allSatisfy { $0.state == "completed" }
            }
            let tasks = try await second.api.tasks("crash")
            let events = try await second.api.allEvents("crash")

            // verify
            #expect(tasks.count == count)
            for task in tasks {
                #expect(task.error == nil, "task \(task.taskIdentifier): \(task.error?.message ?? "")")
                #expect(task.file?.sha256 == OriginContent.sha256(size: size), "task \(task.taskIdentifier)")
            }
            let completions = Dictionary(grouping: events.filter { $0.type == "task.completed" }) { $0.taskIdentifier ?? 0 }
            #expect(completions.count == count)
            #expect(completions.values.allSatisfy { $0.count == 1 }, "exactly one task.completed per task")
            #expect(!checkpoints.isEmpty)
            for (taskIdentifier, partialBytes) in checkpoints {
                let offset = try await second.api.expectContinued("crash", taskIdentifier, origin: origin, name: "c\(taskIdentifier)")
                #expect(offset == partialBytes, "task \(taskIdentifier) continued exactly at its checkpoint")
            }
            try await second.terminate()
        }
    }
}
