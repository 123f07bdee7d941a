import Foundation
import Testing
import TransferdTestOrigins

/// Create-or-reconnect, listing and invalidation of sessions through the API.
@Suite struct SessionsTests {
    @Test func creatingTwiceReconnectsToTheSameSessionWithItsOriginalConfiguration() async throws {
        try await TestService.with { api in
            let first = try await api.send(
                .PUT,
                "/v1/sessions/com.example.bg",
                json: #"{"configuration": {"maximumConnectionsPerHost": 2}}"#
            )
            #expect(first.status == 201)
            let second = try await api.send(
                .PUT,
                "/v1/sessions/com.example.bg",
                json: #"{"configuration": {"maximumConnectionsPerHost": 5}}"#
            )
            #expect(second.status == 200)

            let session = try second.decode(SessionView.self)
            #expect(session.configuration.value1.maximumConnectionsPerHost == 2)
            #expect(session.createdAt == (try first.decode(SessionView.self)).createdAt)
            let list = try await api.send(.GET, "/v1/sessions").decode(SessionPage.self)
            #expect(list.items.map(\.identifier) == ["com.example.bg"])
        }
    }

    @Test func aSessionWithoutConfigurationGetsTheDefaults() async throws {
        try await TestService.with { api in
            let reply = try await api.send(.PUT, "/v1/sessions/defaults")
            #expect(reply.status == 201)
            let session = try reply.decode(SessionView.self)
            #expect(session.state == "active")
            #expect(session.configuration.value1.maximumConnectionsPerHost == 6)
            #expect(session.configuration.value1.timeoutIntervalForRequest == 60)
            #expect(session.configuration.value1.timeoutIntervalForResource == 604_800)
            #expect(session.taskCounts == .init(suspended: 0, running: 0, canceling: 0, completed: 0))
        }
    }

    @Test func sessionsArePaginated() async throws {
        try await TestService.with { api in
            for index in 0..<5 { try await api.createSession("page-\(index)") }
            let first = try await api.send(.GET, "/v1/sessions?limit=3").decode(SessionPage.self)
            #expect(first.items.map(\.identifier) == ["page-0", "page-1", "page-2"])
            let cursor = try #require(first.nextCursor)
            let second = try await api.send(.GET, "/v1/sessions?limit=3&cursor=\(cursor)").decode(SessionPage.self)
            #expect(second.items.map(\.identifier) == ["page-3", "page-4"])
            #expect(second.nextCursor == nil)
        }
    }

    @Test func finishTasksAndInvalidateLetsRunningTasksFinishAndRefusesNewOnes() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                // setup
                try await api.createSession("finish")
                _ = try await api.createTask("finish", url: origin.url("/gated/g/300000"))
                try await waitUntil { try await api.task("finish", 1).countOfBytesReceived > 0 }

                // act
                let invalidating = try await api.send(.POST, "/v1/sessions/finish/invalidate", json: #"{"cancelTasks": false}"#)
                #expect(try invalidating.decode(SessionView.self).state == "invalidating")
                let refused = try await api.send(
                    .POST,
                    "/v1/sessions/finish/tasks",
                    json: #"{"kind": "download", "url": "\#(origin.url("/files/1"))"}"#
                )
                #expect(refused.status == 409)
                origin.open(gate: "g")
                try await api.waitForEvent("finish") { $0.type == "session.invalidated" }

                // verify
                let task = try await api.task("finish", 1)
                #expect(task.error == nil)
                #expect(task.file?.size == 300000)
                let session = try await api.send(.GET, "/v1/sessions/finish").decode(SessionView.self)
                #expect(session.state == "invalidated")
                let reused = try await api.send(.PUT, "/v1/sessions/finish")
                #expect(reused.status == 201, "an invalidated identifier names a new session")
            }
        }
    }

    /// Creating tasks takes the session as found a few seconds ago at most (`KnownSessions`); once that session is
    /// invalidated and its identifier names a new one, new tasks go to the new session at once.
    @Test func anIdentifierGivenToANewSessionTakesNewTasksAtOnce() async throws {
        try await TestService.with { api in
            try await api.createSession("renamed")
            let task = #"{"kind": "download", "url": "http://127.0.0.1:9/file", "start": false}"#
            #expect(try await api.send(.POST, "/v1/sessions/renamed/tasks", json: task).status == 201)
            let invalidated = try await api.send(.POST, "/v1/sessions/renamed/invalidate", json: #"{"cancelTasks": true}"#)
            try await api.waitForEvent("renamed") { $0.type == "session.invalidated" }
            #expect(invalidated.status == 200)
            #expect(try await api.send(.PUT, "/v1/sessions/renamed").status == 201)

            // act
            let created = try await api.send(.POST, "/v1/sessions/renamed/tasks", json: task)

            // verify: the new session's first task
            #expect(created.status == 201)
            #expect(try created.decode(TaskView.self).taskIdentifier == 1)
            #expect(try await api.session("renamed").taskCounts["suspended"] == 1)
        }
    }

    @Test func invalidateAndCancelCancelsEveryTask() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("cancel-all")
                _ = try await api.createTask("cancel-all", url: origin.url("/gated/never/300000"))
                _ = try await api.createTask("cancel-all", url: origin.url("/files/10"), extra: #", "start": false"#)
                try await waitUntil { try await api.task("cancel-all", 1).countOfBytesReceived > 0 }

                _ = try await api.send(.POST, "/v1/sessions/cancel-all/invalidate", json: #"{"cancelTasks": true}"#)
                try await api.waitForEvent("cancel-all") { $0.type == "session.invalidated" }

                for taskIdentifier in [1, 2] {
                    let task = try await api.task("cancel-all", taskIdentifier)
                    #expect(task.state == "completed")
                    #expect(task.error?.code == "cancelled")
                }
                let again = try await api.send(.POST, "/v1/sessions/cancel-all/invalidate", json: #"{"cancelTasks": true}"#)
                #expect(again.status == 409)
            }
        }
    }

    @Test func invalidatingASessionWithoutTasksEndsItAtOnce() async throws {
        try await TestService.with { api in
            try await api.createSession("empty")
            let reply = try await api.send(.POST, "/v1/sessions/empty/invalidate")
            #expect(try reply.decode(SessionView.self).state == "invalidated")
            let types = try await api.events("empty").items.map(\.type)
            #expect(types == ["session.invalidated"])
        }
    }
}
