import Foundation
import Testing
import TransferdTestOrigins

/// Stopping the real service and starting a new one on the same data directory loses and duplicates nothing.
@Suite struct RestartTests {
    @Test func queuedAndRunningTasksAllCompleteAfterARestart() async throws {
        try await OriginServer.with { origin in
            let dataDirectory = DataDirectories.temporary()

            // setup: two transfers held mid-body by the origin, four queued behind them, one suspended
            try await TestService.with(dataDirectory: dataDirectory, workerConcurrency: 2) { api in
                try await api.createSession("restart")
                _ = try await api.createTask("restart", url: origin.url("/gated/a/500000"))
                _ = try await api.createTask("restart", url: origin.url("/gated/b/500000"))
                for index in 0..<4 {
                    _ = try await api.createTask("restart", url: origin.url("/files/\(100_000 + index)"))
                }
                _ = try await api.createTask("restart", url: origin.url("/files/7"), extra: #", "start": false"#)
                try await waitUntil { origin.requests.count == 2 }
                try await waitUntil { try await api.task("restart", 1).countOfBytesReceived > 0 }
            }
            // act: the service stopped gracefully; once restarted, the held transfers may finish
            try await TestService.with(dataDirectory: dataDirectory, workerConcurrency: 2) { api in
                let session = try await api.createSession("restart")
                #expect(session.taskCounts["running"] == 6, "reconnecting finds the interrupted and queued tasks still running")
                origin.open(gate: "a")
                origin.open(gate: "b")
                for taskIdentifier in 1...6 {
                    try await api.waitForCompletion("restart", taskIdentifier)
                }

                // verify
                let sizes = [500_000, 500_000, 100_000, 100_001, 100_002, 100_003]
                for (index, size) in sizes.enumerated() {
                    let task = try await api.task("restart", index + 1)
                    #expect(task.error == nil)
                    #expect(task.file?.sha256 == OriginContent.sha256(size: size))
                }
                #expect(try await api.task("restart", 7).state == "suspended")
                let events = try await api.events("restart").items
                let completions = events.filter { $0.type == "task.completed" }.compactMap(\.taskIdentifier)
                #expect(completions.sorted() == [1, 2, 3, 4, 5, 6], "exactly one task.completed per task")
                #expect(events.map(\.sequence) == Array(1...events.count), "the log has no gaps across the restart")
            }
        }
    }

    @Test func aTaskLeftCancelingCompletesAsCancelledOnTheNextStart() async throws {
        try await OriginServer.with { origin in
            let dataDirectory = DataDirectories.temporary()
            try await TestService.with(dataDirectory: dataDirectory) { api in
                try await api.createSession("canceling")
                _ = try await api.createTask("canceling", url: origin.url("/gated/held/500000"))
                try await waitUntil { try await api.task("canceling", 1).countOfBytesReceived > 0 }
            }
            // A crash between "canceling" and "completed" is simulated by writing the state the crash would leave: the
            // task canceling, its lease still held by the instance that died.
            try await TestDatabase(dataDirectory: dataDirectory).execute(
                "UPDATE tasks SET state = 'canceling', lease_owner = 'transferd', lease_expires_at = '2999-01-01 00:00:00.000'"
            )
            try await TestService.with(dataDirectory: dataDirectory) { api in
                let task = try await api.waitForCompletion("canceling", 1)
                #expect(task.error?.code == "cancelled")
            }
        }
    }

    @Test func sigtermStopsTheProcessCleanlyAndTheNextProcessFinishesTheWork() async throws {
        try await OriginServer.with { origin in
            let dataDirectory = DataDirectories.temporary()

            // setup: a transfer under way in a real process
            let first = try await ServiceProcess.start(dataDirectory: dataDirectory)
            defer { first.stopIfRunning() }
            try await first.api.createSession("sigterm")
            _ = try await first.api.createTask("sigterm", url: origin.url("/gated/held/400000"))
            try await waitUntil { try await first.api.task("sigterm", 1).countOfBytesReceived > 0 }

            // act
            let status = try await first.terminate()
            origin.open(gate: "held")
            let second = try await ServiceProcess.start(dataDirectory: dataDirectory)
            defer { second.stopIfRunning() }
            let task = try await second.api.waitForCompletion("sigterm", 1)
            try await second.terminate()

            // verify
            #expect(status == 0, "SIGTERM is a graceful shutdown: \(first.log)")
            #expect(task.file?.sha256 == OriginContent.sha256(size: 400_000))
        }
    }
}
