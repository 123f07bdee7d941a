import Foundation
import Testing
import TransferdDomain
import TransferdTestOrigins

@testable import transferd

/// Background fetch against a real origin whose content changes between runs, with the service's clock moved by
/// hand: `newData` then `noData` through a `304`, `noData` through an unchanged body, `failed`, pause and resume,
/// and runs missed across a restart coalesced into one.
@Suite struct BackgroundFetchTests {
    static func schedule(_ api: APIClient, _ session: String, url: String, interval: Int = 60, extra: String = "") async throws -> FetchView
    {
        let reply = try await api.send(
            .POST,
            "/v1/sessions/\(session)/fetches",
            json: #"{"url": "\#(url)", "interval": \#(interval)\#(extra)}"#
        )
        #expect(reply.status == 201, "\(reply.text)")
        return try reply.decode()
    }

    /// The session's `fetch.performed` events, once there are `count` of them.
    static func performed(_ api: APIClient, _ session: String, count: Int) async throws -> [EventView] {
        var events: [EventView] = []
        try await waitUntil(timeout: .seconds(60)) {
            events = try await api.allEvents(session).filter { $0.type == "fetch.performed" }
            return events.count >= count
        }
        return events
    }

    @Test func newDataThenNoDataThroughA304ThenNewDataAgain() async throws {
        let clock = ManualClock()
        try await OriginServer.with { origin in
            try await TestService.with(configure: { $0.clock = clock }) { api in
                // setup: a schedule of a feed with validators; its first run is due at once
                try await api.createSession("feeds")
                let fetch = try await Self.schedule(api, "feeds", url: origin.url("/feed/prices"))
                #expect(fetch.state == "scheduled" || fetch.state == "running")
                let first = try await Self.performed(api, "feeds", count: 1)[0]
                #expect(first.data.result == "newData")
                #expect(first.data.etag == "\"prices-v1\"")
                let content = try await api.send(.GET, "/v1/sessions/feeds/fetches/\(fetch.id)/content")
                #expect(content.text == "prices, version 1\n")
                #expect(content.headers.first(name: "etag") == "\"\(first.data.sha256 ?? "")\"")

                // act: the next interval passes with the feed unchanged
                clock.advance(by: 60)
                let second = try await Self.performed(api, "feeds", count: 2)[1]

                // verify: the run asked conditionally, the origin said 304, nothing new was kept
                #expect(second.data.result == "noData")
                #expect(origin.lastHeaders["if-none-match"] == "\"prices-v1\"")
                #expect(origin.lastHeaders["if-modified-since"] != nil)
                let run = try await api.task("feeds", try #require(second.taskIdentifier))
                #expect(run.response?.statusCode == 304)
                #expect(run.file == nil && run.error == nil && run.state == "completed")
                #expect(run.fetch?.id == fetch.id && run.fetch?.result == "noData")

                // act: the feed changes, and the next interval passes
                origin.change("prices")
                clock.advance(by: 60)
                let third = try await Self.performed(api, "feeds", count: 3)[2]

                // verify: a new version, served as the content; the older one (keepVersions 1) pruned
                #expect(third.data.result == "newData")
                #expect(third.data.sha256 != first.data.sha256)
                #expect(try await api.send(.GET, "/v1/sessions/feeds/fetches/\(fetch.id)/content").text == "prices, version 2\n")
                #expect(try await api.task("feeds", try #require(first.taskIdentifier)).file == nil)
                let shown: FetchView = try await api.send(.GET, "/v1/sessions/feeds/fetches/\(fetch.id)").decode()
                #expect(shown.lastRun?.result == "newData" && shown.latest?.sha256 == third.data.sha256)
                #expect(shown.state == "scheduled")
            }
        }
    }

    @Test func anUnchangedBodyWithoutValidatorsIsNoData() async throws {
        let clock = ManualClock()
        try await OriginServer.with { origin in
            try await TestService.with(configure: { $0.clock = clock }) { api in
                try await api.createSession("plain")
                let fetch = try await Self.schedule(api, "plain", url: origin.url("/feed/plain?noValidator"))
                _ = try await Self.performed(api, "plain", count: 1)

                clock.advance(by: 60)
                let second = try await Self.performed(api, "plain", count: 2)[1]

                // verify: nothing to ask conditionally; the same bytes are no news, and are not kept twice
                #expect(origin.lastHeaders["if-none-match"] == nil && origin.lastHeaders["if-modified-since"] == nil)
                #expect(second.data.result == "noData")
                let run = try await api.task("plain", try #require(second.taskIdentifier))
                #expect(run.response?.statusCode == 200 && run.file == nil)
                #expect(try await api.send(.GET, "/v1/sessions/plain/fetches/\(fetch.id)/content").text == "plain, version 1\n")
            }
        }
    }

    @Test func aRunThatFailsIsFailedAndTheScheduleGoesOn() async throws {
        let clock = ManualClock()
        try await OriginServer.with { origin in
            try await TestService.with(configure: { $0.clock = clock }) { api in
                try await api.createSession("broken")
                let fetch = try await Self.schedule(api, "broken", url: origin.url("/status/404"))
                let first = try await Self.performed(api, "broken", count: 1)[0]
                #expect(first.data.result == "failed")
                let shown: FetchView = try await api.send(.GET, "/v1/sessions/broken/fetches/\(fetch.id)").decode()
                #expect(shown.lastRun?.result == "failed" && shown.lastRun?.error != nil)
                #expect(try await api.send(.GET, "/v1/sessions/broken/fetches/\(fetch.id)/content").status == 404)

                clock.advance(by: 60)
                #expect(try await Self.performed(api, "broken", count: 2)[1].data.result == "failed")
            }
        }
    }

    @Test func aRunTheSessionRefusesIsFailedWithoutATaskAndTheOthersRun() async throws {
        let clock = ManualClock()
        let limited: (inout Configuration) -> Void = { configuration in
            configuration.clock = clock
            configuration.limits.maximumTasksPerSession = 3
        }
        try await OriginServer.with { origin in
            try await TestService.with(configure: limited) { api in
                // setup: two schedules, their first runs two of the session's three tasks
                try await api.createSession("full")
                _ = try await Self.schedule(api, "full", url: origin.url("/feed/first"))
                _ = try await Self.schedule(api, "full", url: origin.url("/feed/second"))
                _ = try await Self.performed(api, "full", count: 2)

                // act: both fall due together, with room for one more task
                clock.advance(by: 60)
                let performed = try await Self.performed(api, "full", count: 4).dropFirst(2)

                // verify: one run made the third task; the other was refused, failed, with the session's reason
                #expect(performed.compactMap(\.data.result).sorted { $0.rawValue < $1.rawValue } == ["failed", "noData"])
                let failed = try #require(performed.first { $0.data.result == "failed" })
                #expect(failed.data.taskIdentifier == nil && failed.taskIdentifier == nil)
                #expect(try await api.tasks("full").count == 3)
                let schedules = try await api.send(.GET, "/v1/sessions/full/fetches").decode(FetchListView.self).items
                #expect(schedules.compactMap(\.lastRun?.error).count == 1, "\(schedules.map(\.lastRun))")
            }
        }
    }

    @Test func aPausedScheduleDoesNotRunUntilResumed() async throws {
        let clock = ManualClock()
        try await OriginServer.with { origin in
            try await TestService.with(configure: { $0.clock = clock }) { api in
                try await api.createSession("paused")
                let fetch = try await Self.schedule(api, "paused", url: origin.url("/feed/paused"))
                _ = try await Self.performed(api, "paused", count: 1)
                let paused = try await api.send(.PATCH, "/v1/sessions/paused/fetches/\(fetch.id)", json: #"{"paused": true}"#)
                #expect(try paused.decode(FetchView.self).state == "paused")

                clock.advance(by: 600)
                try await clock.settle()
                #expect(try await api.allEvents("paused").count { $0.type == "fetch.performed" } == 1)

                // act: resumed after ten missed intervals
                _ = try await api.send(.PATCH, "/v1/sessions/paused/fetches/\(fetch.id)", json: #"{"paused": false}"#)

                // verify: one run, at once
                #expect(try await Self.performed(api, "paused", count: 2).count == 2)
                try await clock.settle()
                #expect(try await api.allEvents("paused").count { $0.type == "fetch.performed" } == 2)
            }
        }
    }

    @Test func missedRunsAcrossARestartAreOneRun() async throws {
        let clock = ManualClock()
        let dataDirectory = DataDirectories.temporary()
        try await OriginServer.with { origin in
            let fetchID = try await TestService.with(dataDirectory: dataDirectory, configure: { $0.clock = clock }) { api in
                try await api.createSession("outage")
                let fetch = try await Self.schedule(api, "outage", url: origin.url("/feed/outage"))
                _ = try await Self.performed(api, "outage", count: 1)
                return fetch.id
            }

            // act: the service is down for three intervals and a half
            clock.advance(by: 210)

            try await TestService.with(dataDirectory: dataDirectory, configure: { $0.clock = clock }) { api in
                // verify: one run for the three missed, then none until the next slot
                let second = try await Self.performed(api, "outage", count: 2)[1]
                #expect(second.data.result == "noData")
                try await clock.settle()
                #expect(try await api.allEvents("outage").count { $0.type == "fetch.performed" } == 2)
                #expect(try await api.tasks("outage").count == 2)
                let shown: FetchView = try await api.send(.GET, "/v1/sessions/outage/fetches/\(fetchID)").decode()
                #expect(shown.nextRunAt.timeIntervalSince(shown.createdAt).rounded() == 240)

                clock.advance(by: 30)
                #expect(try await Self.performed(api, "outage", count: 3).count == 3)
            }
        }
    }

    @Test func badSchedulesAreRefusedByField() async throws {
        try await TestService.with { api in
            try await api.createSession("bad")
            let cases: [(String, String)] = [
                (#"{"url": "http://127.0.0.1/x", "interval": 30}"#, "`interval`"),
                (#"{"url": "http://127.0.0.1/x"}"#, "`interval`"),
                (#"{"url": "ftp://127.0.0.1/x", "interval": 60}"#, "`url`"),
                (#"{"url": "http://127.0.0.1/x", "interval": 60, "headers": {"If-None-Match": "*"}}"#, "`headers.If-None-Match`"),
                (#"{"url": "http://127.0.0.1/x", "interval": 60, "window": "25:00-01:00"}"#, "`window`"),
                (#"{"url": "http://127.0.0.1/x", "interval": 60, "jitter": 2}"#, "`jitter`"),
                (#"{"url": "http://127.0.0.1/x", "interval": 60, "keepVersions": 0}"#, "`keepVersions`"),
            ]
            for (body, field) in cases {
                let reply = try await api.send(.POST, "/v1/sessions/bad/fetches", json: body)
                #expect(reply.status == 400, "\(body): \(reply.text)")
                #expect(try reply.decode(ProblemView.self).detail.contains(field), "\(body): \(reply.text)")
            }
            // A URL the destination policy refuses is refused when scheduled, not at each run.
            let metadata = try await api.send(
                .POST,
                "/v1/sessions/bad/fetches",
                json: #"{"url": "http://169.254.169.254/latest/meta-data", "interval": 60}"#
            )
            #expect(metadata.status == 422 && metadata.problem?.type.hasSuffix("destination-not-allowed") == true, "\(metadata.text)")
            #expect(try await api.send(.GET, "/v1/sessions/bad/fetches/fetch_none").status == 404)
            #expect(try await api.send(.GET, "/v1/sessions/bad/fetches").decode(FetchListView.self).items.isEmpty)
        }
    }

    @Test func aDeletedScheduleIsGone() async throws {
        try await TestService.with { api in
            try await api.createSession("gone")
            let fetch = try await Self.schedule(api, "gone", url: "http://127.0.0.1:9/x", extra: #", "window": "00:00-00:01""#)
            #expect(try await api.send(.DELETE, "/v1/sessions/gone/fetches/\(fetch.id)").status == 204)
            #expect(try await api.send(.GET, "/v1/sessions/gone/fetches/\(fetch.id)").status == 404)
            #expect(try await api.send(.DELETE, "/v1/sessions/gone/fetches/\(fetch.id)").status == 404)
        }
    }
}
