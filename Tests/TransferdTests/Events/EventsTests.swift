import Foundation
import Testing
import TransferdTestOrigins

/// Reading the event log: paging by sequence and long-polling.
@Suite struct EventsTests {
    @Test func aLongPollReturnsAsSoonAsTheNextEventIsWritten() async throws {
        try await TestService.with { api in
            try await api.createSession("poll")
            try await withThrowingTaskGroup(of: EventBatchView.self) { group in
                group.addTask { try await api.events("poll", after: 0, wait: 30) }
                // The poll is waiting; creating a task writes the event it waits for.
                _ = try await api.createTask("poll", url: "http://127.0.0.1:9/x", extra: #", "start": false"#)
                let batch = try #require(try await group.next())
                #expect(batch.items.first?.type == "task.created")
            }
        }
    }

    @Test func eventsArePagedBySequence() async throws {
        try await TestService.with { api in
            try await api.createSession("paging")
            for _ in 0..<3 {
                _ = try await api.createTask("paging", url: "http://127.0.0.1:9/x", extra: #", "start": false"#)
            }
            let first = try await api.send(.GET, "/v1/sessions/paging/events?after=0&limit=2").decode(EventBatchView.self)
            #expect(first.items.map(\.sequence) == [1, 2])
            #expect(first.nextAfter == 2)
            let rest = try await api.send(.GET, "/v1/sessions/paging/events?after=2").decode(EventBatchView.self)
            #expect(rest.items.map(\.sequence) == [3])
            #expect(rest.items.map(\.taskIdentifier) == [3])
            let none = try await api.send(.GET, "/v1/sessions/paging/events?after=3").decode(EventBatchView.self)
            #expect(none.items.isEmpty)
            #expect(none.nextAfter == 3)
        }
    }

    @Test func oneTasksEventsAndTheSessionsNewestSequence() async throws {
        try await TestService.with { api in
            try await api.createSession("filtered")
            for _ in 0..<3 {
                _ = try await api.createTask("filtered", url: "http://127.0.0.1:9/x", extra: #", "start": false"#)
            }
            _ = try await api.send(.POST, "/v1/sessions/filtered/tasks/2/cancel")

            let second = try await api.send(.GET, "/v1/sessions/filtered/events?task=2").decode(EventBatchView.self)
            #expect(second.items.map(\.taskIdentifier) == Array(repeating: 2, count: second.items.count))
            #expect(second.items.first?.type == "task.created" && second.items.last?.type == "task.completed")
            #expect(second.nextAfter == second.items.last?.sequence)
            let session = try await api.session("filtered")
            #expect(session.lastEventSequence == (try await api.allEvents("filtered")).last?.sequence)
            #expect(try await api.send(.GET, "/v1/sessions/filtered/events?task=0").status == 400)
        }
    }

    @Test func theTenantsEventsFromNowOn() async throws {
        try await TestService.with { api in
            try await api.createSession("earlier")
            _ = try await api.createTask("earlier", url: "http://127.0.0.1:9/x", extra: #", "start": false"#)

            let now = try await api.send(.GET, "/v1/events?after=now").decode(TenantBatchView.self)
            _ = try await api.createTask("earlier", url: "http://127.0.0.1:9/y", extra: #", "start": false"#)
            let next = try await api.send(.GET, "/v1/events?after=\(now.nextAfter)&wait=30").decode(TenantBatchView.self)

            #expect(now.items.isEmpty)
            #expect(next.items.map(\.taskIdentifier) == [2])
            #expect(try await api.send(.GET, "/v1/events?after=later").problem?.detail.contains("or `now`") == true)
        }
    }

    /// On PostgreSQL a transaction left open elsewhere in the database (another application's, a backup's) once held
    /// back every tenant's events until it ended: they were read only from transactions older than the oldest still
    /// running. They are read in commit order now, each as soon as it commits.
    @Test(.enabled(if: SuiteDatabase.postgresURL != nil, "needs PostgreSQL (TRANSFERD_TEST_DATABASE_URL)"))
    func aTransactionLeftOpenElsewhereHoldsNoTenantsEventsBack() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            try await api.createSession("held")
            let now = try await api.send(.GET, "/v1/events?after=now").decode(TenantBatchView.self)
            let open = try await TestDatabase.OpenTransaction(dataDirectory: dataDirectory)

            // act: an event is written while the other transaction stays open
            _ = try await api.createTask("held", url: "http://127.0.0.1:9/x", extra: #", "start": false"#)
            let next = try await api.send(.GET, "/v1/events?after=\(now.nextAfter)&wait=30").decode(TenantBatchView.self)
            try await open.end()

            // verify: the event came while the transaction was still open
            #expect(next.items.map(\.type) == ["task.created"])
        }
    }

    /// A cursor an earlier version gave (`<transaction>.<id>`, without the `c` of a commit position) still reads on
    /// from where it was: on SQLite after the event's id, on PostgreSQL after the commit of the transaction it names.
    @Test func aCursorOfAnEarlierVersionReadsOnFromWhereItWas() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            try await api.createSession("earlier")
            for name in ["x", "y"] {
                _ = try await api.createTask("earlier", url: "http://127.0.0.1:9/\(name)", extra: #", "start": false"#)
            }
            let all = try await api.send(.GET, "/v1/events").decode(TenantBatchView.self)
            let cursor = try await api.send(.GET, "/v1/events?limit=1").decode(TenantBatchView.self).nextAfter
            #expect(cursor.hasPrefix("c"))

            // act: the first event's cursor as an earlier version wrote it
            let transaction =
                SuiteDatabase.postgresURL == nil
                ? "0"
                : try #require(
                    try await TestDatabase(dataDirectory: dataDirectory).texts(
                        "SELECT transaction_id::text FROM events ORDER BY id LIMIT 1"
                    ).first
                )
            let id = try #require(cursor.split(separator: ".").last)
            let after = try await api.send(.GET, "/v1/events?after=\(transaction).\(id)").decode(TenantBatchView.self)

            // verify
            #expect(all.items.count == 2)
            #expect(after.items.map(\.taskIdentifier) == all.items.dropFirst().map(\.taskIdentifier))
        }
    }

    /// The tenant's events as `/v1/events` shows them.
    struct TenantBatchView: Decodable {
        struct Item: Decodable {
            var session: String
            var type: String
            var taskIdentifier: Int?
        }
        var items: [Item]
        var nextAfter: String
    }

    @Test func progressIsReportedAtMostOncePerIntervalPlusAFinalOne() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(progressInterval: .seconds(3600)) { api in
                try await api.createSession("progress")
                _ = try await api.createTask("progress", url: origin.url("/files/3000000"))
                try await api.waitForCompletion("progress", 1)
                let progress = try await api.events("progress").items.filter { $0.type == "task.progress" }
                #expect(progress.count == 1)
                #expect(progress.first?.data.bytesWritten == 3_000_000)
            }
        }
    }
}
