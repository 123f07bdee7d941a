import Foundation
import Testing
import TransferdTestOrigins
import TransferdTestSupport

@testable import transferd

/// `DELETE /v1/sessions/{identifier}` (issue 64, item 3): the session is gone for the API at once, and what it held
/// goes after: transfers under way are cancelled, its content leaves the disk, its events, deliveries, fetch schedules
/// and background tasks go, then its row, on whichever instance looks first, also after a crash partway.
@Suite struct SessionDeletionTests {
    @Test func aDeletedSessionIsGoneWithEverythingItHeld() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await OriginServer.with { origin in
            try await WebhookReceiver.with { receiver in
                try await TestService.with(dataDirectory: dataDirectory, configure: { $0.sweepInterval = .milliseconds(100) }) { api in
                    try await api.createSession("doomed", configuration: #"{"webhook": {"url": "\#(receiver.url)"}}"#)
                    try await api.createSession("other")
                    _ = try await api.createTask("doomed", url: origin.url("/files/20000"))
                    try await api.waitForCompletion("doomed", 1)
                    _ = try await api.createTask("doomed", url: origin.url("/files/50000000?name=slow&bytesPerSecond=100000"))
                    _ = try await api.createTask("other", url: origin.url("/files/1000"))
                    try await api.waitForCompletion("other", 1)
                    let fetch = try await api.send(
                        .POST,
                        "/v1/sessions/doomed/fetches",
                        json: #"{"url": "\#(origin.url("/files/10"))", "interval": 3600}"#
                    )
                    #expect(fetch.status == 201)
                    let background = try await api.send(
                        .POST,
                        "/v1/sessions/doomed/background-tasks",
                        json: #"{"name": "n", "duration": 60}"#
                    )
                    #expect(background.status == 201)
                    try await waitUntil { origin.arrivals("slow").count == 1 }
                    #expect(Self.files(in: dataDirectory).count >= 2, "the content and the partial file")

                    // act
                    let deleted = try await api.send(.DELETE, "/v1/sessions/doomed")

                    // verify: gone for the API at once, its identifier free
                    #expect(deleted.status == 204, "\(deleted.text)")
                    for path in ["", "/tasks/1", "/events", "/fetches", "/deliveries"] {
                        #expect(try await api.send(.GET, "/v1/sessions/doomed\(path)").status == 404, "GET …\(path)")
                    }
                    #expect(try await api.send(.DELETE, "/v1/sessions/doomed").status == 404, "a second DELETE")
                    let listed = try await api.send(.GET, "/v1/sessions").decode(SessionPage.self).items.map(\.identifier)
                    #expect(listed == ["other"])
                    // A new session, at once, while the deleted one's cancelled transfer may still wind down.
                    #expect(try await api.send(.PUT, "/v1/sessions/doomed", json: "{}").status == 201, "a new session of that identifier")

                    // verify: what it held goes, then its row; the other session keeps all it has
                    let database = TestDatabase(dataDirectory: dataDirectory)
                    try await waitUntil(timeout: .seconds(60)) {
                        try await database.rows("SELECT COUNT(*) FROM sessions WHERE identifier = 'doomed'")[0][0] == 1
                    }
                    for table in ["tasks", "events", "deliveries", "fetch_schedules", "background_tasks", "webhooks"] {
                        let left = try await database.rows(
                            "SELECT COUNT(*) FROM \(table) WHERE session_id NOT IN (SELECT id FROM sessions)"
                        )[0][0]
                        #expect(left == 0, "\(table) of the deleted session")
                    }
                    #expect(Self.files(in: dataDirectory).count == 1, "only the other session's content: \(Self.files(in: dataDirectory))")
                    #expect(try await api.task("other", 1).file?.size == 1000)
                    #expect(try await Scrape(api)[#"transferd_history_rows_removed_total{table="sessions"}"#] == 1)
                }
            }
        }
    }

    /// Killed right after the `DELETE` (the removal under way or not begun), the next start on the data directory
    /// finishes it: nothing is left half-deleted.
    @Test func aDeletionInterruptedByAKillIsFinishedByTheNextStart() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await OriginServer.with { origin in
            let first = try await ServiceProcess.start(dataDirectory: dataDirectory, arguments: ["--sweep-interval", "3600"])
            defer { first.stopIfRunning() }
            try await first.api.createSession("doomed")
            let tasks = (0..<600).map { _ in #"{"kind": "download", "url": "\#(origin.url("/files/1"))", "start": false}"# }
            let batch = try await first.api.send(
                .POST,
                "/v1/sessions/doomed/tasks",
                json: #"{"tasks": [\#(tasks.joined(separator: ", "))]}"#
            )
            #expect(batch.status == 201)

            // act
            #expect(try await first.api.send(.DELETE, "/v1/sessions/doomed").status == 204)
            try await first.kill()
            let second = try await ServiceProcess.start(dataDirectory: dataDirectory, arguments: ["--sweep-interval", "1"])
            defer { second.stopIfRunning() }

            // verify
            #expect(try await second.api.send(.GET, "/v1/sessions/doomed").status == 404)
            let database = TestDatabase(dataDirectory: dataDirectory)
            try await waitUntil(timeout: .seconds(60)) {
                try await database.rows("SELECT COUNT(*) FROM sessions")[0][0] == 0
            }
            #expect(try await database.rows("SELECT COUNT(*) FROM tasks")[0][0] == 0)
            #expect(try await database.rows("SELECT COUNT(*) FROM events")[0][0] == 0)
            try await second.terminate()
        }
    }

    /// The files of tasks in the data directory.
    private static func files(in dataDirectory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/tasks")) ?? []
    }
}
