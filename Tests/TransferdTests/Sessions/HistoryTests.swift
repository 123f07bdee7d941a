import Foundation
import GRDB
import Testing
import TransferdDomain
import TransferdTestSupport

@testable import transferd

/// History past keeping is forgotten on schedule (issue 64): a finished task's row, its events with their deliveries
/// and attempts, and ended background tasks go once the longer of the session's content retention and its history
/// retention has passed, never an event whose delivery is still pending; the log loses events from its start only,
/// and a reader from before where it was trimmed is told so (410) rather than handed a silent gap.
@Suite struct HistoryTests {
    @Test func finishedHistoryGoesAfterTheLongerRetentionAndReadingFromBeforeItIsRefused() async throws {
        let clock = ManualClock()
        try await WebhookReceiver.with { receiver in
            try await TestService.with(configure: {
                $0.clock = clock
                $0.historyRetention = HistoryRetention(defaultPeriod: 7_200)
            }) { api in
                let hook = #""webhook": {"url": "\#(receiver.url)"}"#
                try await api.createSession("brief", configuration: #"{"retentionPeriod": 60, "historyRetention": 3600, \#(hook)}"#)
                try await api.createSession("default", configuration: #"{"retentionPeriod": 60}"#)
                let held = #"{"retentionPeriod": 60, "historyRetention": 3600, "sessionSendsLaunchEvents": false, \#(hook)}"#
                try await api.createSession("held", configuration: held)
                for session in ["brief", "default", "held"] { try await Self.finishTwoTasks(session, api) }
                let background = try await api.send(.POST, "/v1/sessions/brief/background-tasks", json: #"{"name": "n", "duration": 30}"#)
                let backgroundID = try background.decode(BackgroundTaskView.self).id
                #expect(try await api.send(.POST, "/v1/sessions/brief/background-tasks/\(backgroundID)/end").status == 200)
                try await api.waitUntilAllAcknowledged("brief")
                let last = try await api.session("brief").lastEventSequence
                #expect(try await api.deliveries("brief").count > 0)

                // act: the brief session's history retention passes, not the service's
                clock.advance(by: 3_601)
                try await clock.settle()

                // verify: its tasks, background task, events, deliveries are gone; its log begins after them
                for path in ["tasks/1", "tasks/2", "background-tasks/\(backgroundID)"] {
                    #expect(try await api.send(.GET, "/v1/sessions/brief/\(path)").status == 404, "\(path)")
                }
                #expect(try await api.session("brief").earliestSequence == last + 1)
                #expect(try await api.deliveries("brief").isEmpty)
                let refused = try await api.send(.GET, "/v1/sessions/brief/events?after=0")
                #expect(refused.status == 410)
                #expect(refused.problem?.type == "urn:transferd:problem:history-trimmed")
                #expect(refused.problem?.earliestSequence == last + 1)
                let stream = try await api.send(
                    .GET,
                    "/v1/sessions/brief/events",
                    headers: [("Accept", "text/event-stream"), ("Last-Event-ID", "1")]
                )
                #expect(stream.status == 410, "a stream from an old Last-Event-ID")
                #expect(try await api.events("brief", after: Int(last)).items.isEmpty)
                let tenant = try await api.send(.GET, "/v1/events")
                #expect(tenant.status == 410, "the tenant's events from the start")
                let readOn = try #require(tenant.problem?.earliestAfter)
                #expect(try await api.send(.GET, "/v1/events?after=\(readOn)").status == 200)

                // verify: what is kept longer stays: the service's retention, and events whose delivery is pending
                #expect(try await api.send(.GET, "/v1/sessions/default/tasks/1").status == 200)
                #expect(try await api.allEvents("default").first?.sequence == 1)
                #expect(try await api.send(.GET, "/v1/sessions/held/tasks/1").status == 200)
                #expect(try await api.session("held").earliestSequence == 1)

                // verify: the log goes on gap-free from where it begins
                _ = try await api.createTask("brief", url: "http://127.0.0.1:9/", extra: #", "start": false"#)
                #expect(try await api.events("brief", after: Int(last)).items.first?.sequence == last + 1)
                let removed = try await Scrape(api)
                #expect(removed[#"transferd_history_rows_removed_total{table="tasks"}"#] == 2)
                #expect(removed[#"transferd_history_rows_removed_total{table="events"}"#] >= Double(last))
                #expect(removed[#"transferd_history_rows_removed_total{table="deliveries"}"#] > 0)
                #expect(removed[#"transferd_history_rows_removed_total{table="background_tasks"}"#] == 1)
                #expect(removed["transferd_database_size_bytes{}"] > 0)

                // act: the service's retention passes too
                clock.advance(by: 3_600)
                try await clock.settle()
                #expect(try await api.send(.GET, "/v1/sessions/default/tasks/1").status == 404)
                #expect(try await api.send(.GET, "/v1/sessions/held/tasks/1").status == 200, "its deliveries still pending")
            }
        }
    }

    /// On SQLite the pages of removed history go back to the file system (incremental vacuum): the database, as
    /// SQLite counts its pages, shrinks in the pass, and so does its file once its log is checkpointed.
    @Test(.enabled(if: SuiteDatabase.postgresURL == nil, "measures an SQLite file"))
    func theSQLiteFileShrinksOnceHistoryGoes() async throws {
        let clock = ManualClock()
        let dataDirectory = DataDirectories.temporary()
        let file = dataDirectory + "/transferd.sqlite"
        let sizes = try await TestService.with(dataDirectory: dataDirectory, configure: { $0.clock = clock }) { api in
            try await api.createSession("bulk", configuration: #"{"historyRetention": 60, "retentionPeriod": 60}"#)
            let task =
                #"{"kind": "download", "url": "http://127.0.0.1:9/", "start": false, "taskDescription": "\#(String(repeating: "x", count: 1000))"}"#
            for _ in 0..<4 {
                let batch = try await api.send(
                    .POST,
                    "/v1/sessions/bulk/tasks",
                    json: #"{"tasks": [\#(Array(repeating: task, count: 500).joined(separator: ", "))]}"#
                )
                #expect(batch.status == 201, "\(batch.text)")
            }
            let cancelled = try await api.send(.POST, "/v1/sessions/bulk/invalidate", json: #"{"cancelTasks": true}"#)
            #expect(cancelled.status == 200, "\(cancelled.text)")
            try await waitUntil { try await api.session("bulk").taskCounts.completed == 2_000 }
            let grown = try await Scrape(api)["transferd_database_size_bytes{}"]

            clock.advance(by: 61)
            try await clock.settle()

            #expect(try await api.send(.GET, "/v1/sessions/bulk").status == 404, "invalidated, with nothing left under it")
            return (grown: grown, shrunk: try await Scrape(api)["transferd_database_size_bytes{}"])
        }
        // The file is cut to its pages when its log is checkpointed: the stopped service's last connection may not
        // have closed yet, so the test checkpoints it itself.
        try await TestDatabase(dataDirectory: dataDirectory).queue.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        let fileSize = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0
        #expect(sizes.shrunk < sizes.grown / 4, "from \(sizes.grown) bytes to \(sizes.shrunk)")
        #expect(Double(fileSize) < sizes.grown / 4, "the file: \(fileSize) bytes, from \(sizes.grown)")
    }

    /// Creates two tasks in `session` and cancels them before they start: two finished tasks, with their events.
    private static func finishTwoTasks(_ session: String, _ api: APIClient) async throws {
        for identifier in 1...2 {
            _ = try await api.createTask(session, url: "http://127.0.0.1:9/", extra: #", "start": false"#)
            #expect(try await api.send(.POST, "/v1/sessions/\(session)/tasks/\(identifier)/cancel").status == 200)
        }
    }
}
