import Foundation
import GRDB
import Testing
import TransferdTestOrigins

/// A data directory written by the previous release opens with today's code, shows what it held, and continues. It
/// holds an SQLite database, so these run on SQLite only.
@Suite(.enabled(if: SuiteDatabase.postgresURL == nil, "upgrades an SQLite data directory"))
struct UpgradeTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/data-before-layers").path

    @Test func aDataDirectoryOfThePreviousReleaseOpensAndContinues() async throws {
        try await OriginServer.with { origin in
            // setup: a copy of the fixture, its tasks pointed at this test's origin
            let dataDirectory = DataDirectories.temporary()
            try FileManager.default.removeItem(atPath: dataDirectory)
            try FileManager.default.copyItem(atPath: Self.fixture, toPath: dataDirectory)
            let oldURL = try await TestDatabase(dataDirectory: dataDirectory).queue.read { db in
                try String.fetchOne(db, sql: "SELECT json_extract(original_request, '$.url') FROM tasks WHERE task_identifier = 5")
            }
            let oldOrigin = try #require(oldURL.flatMap { URL(string: $0) }.map { "\($0.host ?? ""):\($0.port ?? 0)" })
            let newOrigin = String(origin.url("/").dropFirst("http://".count).dropLast())
            try await TestDatabase(dataDirectory: dataDirectory).queue.write { db in
                try db.execute(
                    sql: "UPDATE tasks SET original_request = replace(original_request, ?, ?), origin = ? WHERE task_identifier IN (2, 3)",
                    arguments: [oldOrigin, newOrigin, newOrigin]
                )
                // What expires was written a moment before the upgrade, not on the day the fixture was made (the
                // test failed once the fixture was 7 days old): idempotency keys live 24 hours; a finished task's
                // content, a staged file and an unfinished task its session's retention or resource timeout, 7 days.
                let now = Date()
                try db.execute(sql: "UPDATE idempotency_keys SET created_at = ?", arguments: [now])
                try db.execute(
                    sql: "UPDATE tasks SET created_at = ?, completed_at = iif(completed_at IS NULL, NULL, ?)",
                    arguments: [now, now]
                )
                try db.execute(sql: "UPDATE files SET expires_at = ?", arguments: [now.addingTimeInterval(7 * 86_400)])
            }

            try await TestService.with(dataDirectory: dataDirectory) { api in
                // verify what the previous release wrote
                let session = try await api.session("upgrade")
                #expect(session.taskCounts == .init(suspended: 2, running: 1, canceling: 0, completed: 2))
                let content = try await api.send(.GET, "/v1/sessions/upgrade/tasks/1/content")
                #expect(content.status == 200)
                #expect(content.body == Data(OriginContent.buffer(0..<1000).readableBytesView))
                #expect(try await api.task("upgrade", 3).waitingReason == "notBefore")
                let file = try await api.send(.GET, "/v1/files/upgrade-file").decode(StagedFileView.self)
                #expect(file.state == "complete" && file.size == 500)
                let replay = try await api.send(
                    .POST,
                    "/v1/sessions/upgrade/tasks",
                    json: #"{"kind": "download", "url": "\#(oldURL ?? "")", "start": false}"#,
                    headers: [("Idempotency-Key", "upgrade-key")]
                )
                #expect(replay.status == 201)
                #expect(try replay.decode(TaskView.self).taskIdentifier == 5, "the kept response, not a new task")

                // act: the deadline that passed while it was down takes effect; the suspended download runs
                try await api.waitForEvent("upgrade") { $0.type == "background_task.expired" }
                _ = try await api.send(.POST, "/v1/sessions/upgrade/tasks/2/resume")
                let resumed = try await api.waitForCompletion("upgrade", 2)

                // verify the work continued and the log stayed gap-free
                #expect(resumed.file?.sha256 == OriginContent.sha256(size: 2000))
                let events = try await api.allEvents("upgrade")
                #expect(events.map(\.sequence) == Array(1...events.count))
                #expect(events.count > 12, "new events follow the 12 the previous release wrote")
                let created = try await api.createTask("upgrade", url: origin.url("/files/10"))
                #expect(created.taskIdentifier == 6)
            }
        }
    }
}
