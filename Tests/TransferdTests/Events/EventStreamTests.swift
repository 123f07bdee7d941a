import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TransferdDomain
import TransferdTestOrigins

@testable import transferd

/// `GET …/events` with `Accept: text/event-stream`: the session's events live, each message's `id` its sequence,
/// resumable with `Last-Event-ID` (across a restart too), bounded per key, ended by a graceful shutdown. Read by a
/// real SSE client (`httpx-sse`, from PyPI).
@Suite struct EventStreamTests {
    @Test func aDownloadsEventsArriveLiveAsTheyAreWritten() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(progressInterval: .milliseconds(50)) { api in
                try await api.createSession("live")
                let stream = try EventStreamReader(api, "/v1/sessions/live/events")
                defer { stream.close() }
                #expect(try await stream.status() == 200)

                // act: a throttled download runs while the stream is open
                _ = try await api.createTask("live", url: origin.url("/files/400000?bytesPerSecond=400000"))
                let received = try await stream.waitFor { $0.contains { $0.event == "session.events_finished" } }

                // verify: every event in order, with the JSON the list shows, progress among them before completion
                let log = try await api.allEvents("live")
                #expect(received.map(\.id) == log.prefix(received.count).map { String($0.sequence) })
                #expect(received.map(\.event) == log.prefix(received.count).map(\.type))
                #expect(received.count { $0.event == "task.progress" } >= 2, "didWriteData while it ran")
                let completion = try #require(received.first { $0.event == "task.completed" })
                let completed = try JSONCoding.decoder.decode(EventView.self, from: Data(completion.data.utf8))
                #expect(completed.taskIdentifier == 1 && completed.data.state == "completed")
            }
        }
    }

    @Test func aReconnectWithLastEventIDGetsExactlyTheMissedEvents() async throws {
        try await TestService.with { api in
            try await api.createSession("gap")
            for number in 1...3 { _ = try await api.createTask("gap", url: "http://127.0.0.1:9/\(number)", extra: #", "start": false"#) }
            let first = try EventStreamReader(api, "/v1/sessions/gap/events", count: 2)
            let seen = try await first.waitFor { $0.count == 2 }

            // act: more events while disconnected, then a reconnect from the last id received
            for number in 4...5 { _ = try await api.createTask("gap", url: "http://127.0.0.1:9/\(number)", extra: #", "start": false"#) }
            let again = try EventStreamReader(api, "/v1/sessions/gap/events", lastEventID: seen.last?.id)
            defer { again.close() }
            let missed = try await again.waitFor { $0.count >= 3 }

            // verify: from the next sequence on, none twice, none skipped
            #expect(seen.map(\.id) == ["1", "2"])
            #expect(missed.map(\.id) == ["3", "4", "5"])
        }
    }

    @Test func aReconnectAfterARestartOfTheServiceMissesNothing() async throws {
        let dataDirectory = DataDirectories.temporary()
        let seen = try await TestService.with(dataDirectory: dataDirectory) { api in
            try await api.createSession("restart")
            _ = try await api.createTask("restart", url: "http://127.0.0.1:9/1", extra: #", "start": false"#)
            return try await EventStreamReader(api, "/v1/sessions/restart/events", count: 1).waitFor { $0.count == 1 }
        }
        try await TestService.with(dataDirectory: dataDirectory) { api in
            // act: an event written after the restart, then the reconnect
            _ = try await api.createTask("restart", url: "http://127.0.0.1:9/2", extra: #", "start": false"#)
            let stream = try EventStreamReader(api, "/v1/sessions/restart/events", lastEventID: seen.last?.id)
            defer { stream.close() }
            let missed = try await stream.waitFor { !$0.isEmpty }

            #expect(seen.map(\.id) == ["1"])
            #expect(missed.map(\.id) == ["2"])
            #expect(missed.first?.event == "task.created")
        }
    }

    @Test func anIdleStreamSendsHeartbeatsAndEndsCleanlyAtGracefulShutdown() async throws {
        var stream: EventStreamReader?
        let body = try await TestService.with(configure: { $0.streamHeartbeat = .milliseconds(100) }) { api in
            try await api.createSession("idle")
            stream = try EventStreamReader(api, "/v1/sessions/idle/events")
            #expect(try await stream?.status() == 200)
            // the raw bytes, for the heartbeat comment that an SSE client does not show
            var request = HTTPClientRequest(url: api.baseURL + "/v1/sessions/idle/events")
            request.headers.add(name: "Accept", value: "text/event-stream")
            request.headers.add(name: "Authorization", value: "Bearer \(TestService.apiKey)")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            var iterator = response.body.makeAsyncIterator()
            return String(buffer: try #require(try await iterator.next()))
        }

        // verify: once the service has shut down, the stream has ended without an error
        #expect(body == ": heartbeat\n\n")
        try await stream?.waitForEnd()
    }

    @Test func heartbeatsBetweenEventsAreNotMessages() async throws {
        try await TestService.with(configure: { $0.streamHeartbeat = .milliseconds(50) }) { api in
            try await api.createSession("beats")
            _ = try await api.createTask("beats", url: "http://127.0.0.1:9/1", extra: #", "start": false"#)
            let stream = try EventStreamReader(api, "/v1/sessions/beats/events")
            defer { stream.close() }
            _ = try await stream.waitFor { $0.count == 1 }

            // act: heartbeats go out while nothing happens (time passing, not a wait for a condition), then an event
            try await Task.sleep(for: .milliseconds(300))
            _ = try await api.createTask("beats", url: "http://127.0.0.1:9/2", extra: #", "start": false"#)

            // verify: the client saw the two events and nothing else
            let messages = try await stream.waitFor { $0.contains { $0.id == "2" } }
            #expect(messages.map(\.id) == ["1", "2"])
        }
    }

    @Test func streamsPerKeyAreBoundedWithAClearProblem() async throws {
        try await TestService.with(configure: { $0.maximumStreamsPerKey = 2 }) { api in
            try await api.createSession("bounded")
            let open = [
                try EventStreamReader(api, "/v1/sessions/bounded/events"), try EventStreamReader(api, "/v1/sessions/bounded/events"),
            ]
            defer { for stream in open { stream.close() } }
            for stream in open { #expect(try await stream.status() == 200) }

            let refused = try await api.send(.GET, "/v1/sessions/bounded/events", headers: [("Accept", "text/event-stream")])

            #expect(refused.status == 429)
            #expect(refused.problem?.type == "urn:transferd:problem:too-many-streams")
            #expect(try await api.send(.GET, "/v1/sessions/bounded/events").status == 200, "the JSON list is not a stream")
        }
    }

    @Test func aStreamNeedsAuthenticationAndAValidLastEventID() async throws {
        try await TestService.with { api in
            try await api.createSession("guarded")
            var anonymous = api
            anonymous.key = nil
            #expect(try await EventStreamReader(anonymous, "/v1/sessions/guarded/events").status() == 401)
            let bad = try await api.send(
                .GET,
                "/v1/sessions/guarded/events",
                headers: [("Accept", "text/event-stream"), ("Last-Event-ID", "x")]
            )
            #expect(bad.status == 400)
            #expect(bad.problem?.detail.contains("Last-Event-ID") == true)
        }
    }

    @Test func theTenantStreamCarriesEveryOneOfItsSessionsAndNoOtherTenants() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            var other = api
            other.key = try await KeyManagement.create(dataDirectory: dataDirectory, name: "other", tenant: "other", admin: false)
            let stream = try EventStreamReader(api, "/v1/events")
            defer { stream.close() }
            #expect(try await stream.status() == 200)

            // act: events in two sessions of the tenant, and in another tenant's session of the same name
            try await other.createSession("a")
            _ = try await other.createTask("a", url: "http://127.0.0.1:9/theirs", extra: #", "start": false"#)
            for session in ["a", "b"] {
                try await api.createSession(session)
                _ = try await api.createTask(session, url: "http://127.0.0.1:9/\(session)", extra: #", "start": false"#)
            }
            let received = try await stream.waitFor { $0.count >= 2 }

            // verify: both sessions' task.created, each with its session, and nothing of the other tenant
            let events = try received.map { try JSONCoding.decoder.decode(TenantEventView.self, from: Data($0.data.utf8)) }
            #expect(events.map(\.session) == ["a", "b"])
            #expect(received.map(\.event) == ["task.created", "task.created"])
            let batch = try await api.send(.GET, "/v1/events").decode(TenantBatchView.self)
            #expect(batch.items.map(\.session) == ["a", "b"])
            #expect(batch.nextAfter == received.last?.id, "the batch's cursor and the stream's ids are the same")
            #expect(try await other.send(.GET, "/v1/events").decode(TenantBatchView.self).items.map(\.session) == ["a"])
        }
    }

    @Test func aTenantStreamReconnectGetsExactlyTheMissedEvents() async throws {
        try await TestService.with { api in
            for session in ["x", "y"] { try await api.createSession(session) }
            _ = try await api.createTask("x", url: "http://127.0.0.1:9/1", extra: #", "start": false"#)
            let first = try EventStreamReader(api, "/v1/events", count: 1)
            let seen = try await first.waitFor { $0.count == 1 }

            // act: events in both sessions while disconnected, then a reconnect from the last id received
            _ = try await api.createTask("y", url: "http://127.0.0.1:9/2", extra: #", "start": false"#)
            _ = try await api.createTask("x", url: "http://127.0.0.1:9/3", extra: #", "start": false"#)
            let again = try EventStreamReader(api, "/v1/events", lastEventID: seen.last?.id)
            defer { again.close() }
            let missed = try await again.waitFor { $0.count >= 2 }

            // verify: the two missed, in order, once
            let sessions = try missed.map { try JSONCoding.decoder.decode(TenantEventView.self, from: Data($0.data.utf8)).session }
            #expect(sessions == ["y", "x"])
            #expect(Set(missed.map(\.id)).count == 2 && !missed.map(\.id).contains(seen.last?.id))
            let bad = try await api.send(.GET, "/v1/events", headers: [("Accept", "text/event-stream"), ("Last-Event-ID", "7")])
            #expect(bad.status == 400)
        }
    }

    /// A tenant's event as `/v1/events` shows it.
    struct TenantEventView: Decodable {
        var session: String
        var sequence: Int
        var type: String
    }

    struct TenantBatchView: Decodable {
        var items: [TenantEventView]
        var nextAfter: String
    }
}
