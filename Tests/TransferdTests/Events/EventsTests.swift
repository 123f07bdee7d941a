import Foundation
import Testing

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
            // On PostgreSQL an event reaches the tenant's events once older transactions (another test's, anywhere in
            // the cluster: CI saw one last over 30 s) have ended, and the present may still let through one that
            // committed while such a transaction ran; on SQLite both are exact.
            var (next, cursor): ([TenantBatchView.Item], String) = ([], now.nextAfter)
            try await waitUntil(timeout: .seconds(120)) {
                let batch = try await api.send(.GET, "/v1/events?after=\(cursor)&wait=5").decode(TenantBatchView.self)
                (next, cursor) = (next + batch.items, batch.nextAfter)
                return next.contains { $0.taskIdentifier == 2 }
            }
            #expect(next.map(\.taskIdentifier).last == 2)
            if TestService.postgresURL == nil {
                #expect(now.items.isEmpty && next.count == 1)
            }
            #expect(try await api.send(.GET, "/v1/events?after=later").problem?.detail.contains("or `now`") == true)
        }
    }

    /// The tenant's events as `/v1/events` shows them.
    struct TenantBatchView: Decodable {
        struct Item: Decodable {
            var session: String
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
