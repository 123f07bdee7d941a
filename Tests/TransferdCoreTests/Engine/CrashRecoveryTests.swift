import Foundation
import Testing

/// `kill -9` in the middle of many downloads: the next start continues each from its flushed checkpoint.
@Suite struct CrashRecoveryTests {
    @Test func killNineMidwayLosesNoDownloadAndCompletesEachExactlyOnce() async throws {
        let count = 50
        let size = 3_000_000
        try await OriginServer.with { origin in
            let dataDirectory = TestService.temporaryDataDirectory()

            // setup: 50 throttled downloads under way in a real process
            let first = try await ServiceProcess.start(dataDirectory: dataDirectory)
            try await first.api.createSession("crash", configuration: #"{"maximumConnectionsPerHost": 16}"#)
            for index in 1...count {
                _ = try await first.api.createTask(
                    "crash",
                    url: origin.url("/files/\(size)?name=c\(index)&faults=0&bytesPerSecond=1000000")
                )
            }
            // Tasks with a checkpoint well into their body: at 1 MB/s, 2 MB reported means bytes flushed to disk.
            var checkpointed: Set<Int> = []
            try await waitUntil(timeout: .seconds(60)) {
                let progress = try await first.api.allEvents("crash").filter { $0.type == "task.progress" }
                checkpointed = Set(progress.filter { ($0.data.totalBytesWritten ?? 0) >= 2_000_000 }.compactMap(\.taskIdentifier))
                return checkpointed.count >= 12
            }

            // act
            try await first.kill()
            checkpointed.subtract(try TestDatabase(dataDirectory: dataDirectory).taskIdentifiers(state: "completed"))
            let second = try await ServiceProcess.start(dataDirectory: dataDirectory)
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
            #expect(!checkpointed.isEmpty)
            for taskIdentifier in checkpointed {
                try await second.api.expectContinued("crash", taskIdentifier, origin: origin, name: "c\(taskIdentifier)")
            }
            try await second.terminate()
        }
    }
}
