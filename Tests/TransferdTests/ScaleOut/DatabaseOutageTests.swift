import Foundation
import Testing
import TransferdTestOrigins

@testable import transferd

/// PostgreSQL stopped for a few seconds under load, as a crash or a failover would: requests meanwhile get a 503
/// that changes nothing, transfers go on, and once the database is back every task completes once, the event log
/// has no gap and every event reaches the subscriber. An instance that starts before its database waits for it. Only with `TRANSFERD_TEST_DATABASE_URL`, on a server of the
/// test's own.
@Suite(.enabled(if: SuiteDatabase.postgresURL != nil && PostgresCluster.binaries != nil, "needs PostgreSQL's binaries"))
struct DatabaseOutageTests {
    static let size = 1_500_000
    static let tasks = 12

    @Test func aDatabaseStoppedForSecondsUnderLoadLosesNothing() async throws {
        try await PostgresCluster.with { cluster in
            try await OriginServer.with { origin in
                try await WebhookReceiver.with { receiver in
                    try await TestService.with(progressInterval: .milliseconds(200), configure: { $0.databaseURL = cluster.url }) { api in
                        // setup: downloads under way, events flowing to a subscriber
                        let events = #"["task.created", "task.resumed_at_offset", "task.finished_downloading", "task.completed"]"#
                        try await api.createSession(
                            "outage",
                            configuration: #"{"webhook": {"url": "\#(receiver.url)", "events": \#(events)}}"#
                        )
                        for number in 1...Self.tasks {
                            let url = origin.url("/files/\(Self.size)?name=\(number)&faults=0&bytesPerSecond=300000")
                            _ = try await api.createTask("outage", url: url)
                        }
                        try await waitUntil { try await api.tasks("outage").count { $0.countOfBytesReceived > 0 } >= Self.tasks / 2 }

                        // act: the database stops, requests come meanwhile, and it starts again
                        try await cluster.stop()
                        let read = try await api.send(.GET, "/v1/sessions/outage/tasks/1")
                        let write = try await api.send(
                            .POST,
                            "/v1/sessions/outage/tasks",
                            json: #"{"kind": "download", "url": "\#(origin.url("/files/10?name=refused"))"}"#
                        )
                        let readiness = try await api.send(.GET, "/readyz")
                        try await Task.sleep(for: .seconds(3))  // the outage itself, not a wait for something
                        try await cluster.start()

                        // verify: refused meanwhile, precisely and retryably, with nothing done
                        for reply in [read, write] {
                            #expect(reply.status == 503, "\(reply.text)")
                            #expect(reply.problem?.type == "urn:transferd:problem:database-unavailable")
                            #expect(reply.headers.first(name: "Retry-After") == "1")
                        }
                        #expect(readiness.status == 503)
                        // and once it is back, everything continues and completes once
                        let completed = try await waitForAll(api)
                        #expect(completed.count == Self.tasks, "the refused task was not created")
                        for task in completed {
                            #expect(task.error == nil, "task \(task.taskIdentifier): \(task.error?.message ?? "")")
                            #expect(task.file?.sha256 == OriginContent.sha256(size: Self.size))
                        }
                        let log = try await api.allEvents("outage")
                        #expect(log.map(\.sequence) == Array(1...log.count), "sequences 1, 2, 3, … without a gap")
                        let completions = log.filter { $0.type == "task.completed" }.compactMap(\.taskIdentifier)
                        #expect(completions.sorted() == Array(1...Self.tasks), "one task.completed per task")
                        try await api.waitUntilAllAcknowledged("outage")
                        let subscribed = log.filter { events.contains("\"\($0.type)\"") }.map(\.sequence)
                        #expect(Set(receiver.received.map(\.sequence)) == Set(subscribed), "every subscribed event delivered")
                        #expect(try await api.send(.GET, "/readyz").status == 200)
                    }
                }
            }
        }
    }

    @Test func anInstanceStartedBeforeItsDatabaseWaitsForIt() async throws {
        try await PostgresCluster.with { cluster in
            try await cluster.stop()

            // act: the service starts while its database is down, and the database comes a little later
            async let readiness = TestService.with(configure: { $0.databaseURL = cluster.url }) { api in
                try await api.createSession("late")
                return try await api.send(.GET, "/readyz").status
            }
            try await Task.sleep(for: .seconds(2))  // the database's late start itself, not a wait for something
            try await cluster.start()

            // verify: it started once the database was there, and serves
            #expect(try await readiness == 200)
        }
    }

    /// The session's tasks once every one has completed.
    private func waitForAll(_ api: APIClient) async throws -> [TaskView] {
        var tasks: [TaskView] = []
        try await waitUntil(timeout: .seconds(180)) {
            // A list refused while the pool connects again (503, Retry-After: 1) is asked for again, as a client would.
            guard let listed = try? await api.tasks("outage") else { return false }
            tasks = listed
            return tasks.allSatisfy { $0.state == "completed" }
        }
        return tasks
    }
}
