import Foundation
import Testing
import TransferdTestOrigins

/// The worker pool's limits and order, observed from the origin's side.
@Suite struct SchedulerTests {
    @Test func concurrentDownloadsRespectTheGlobalAndThePerHostLimit() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(workerConcurrency: 3) { api in
                // setup: one session allowing one connection per host, another allowing many
                try await api.createSession("narrow", configuration: #"{"maximumConnectionsPerHost": 1}"#)
                try await api.createSession("wide")
                for index in 0..<4 {
                    _ = try await api.createTask("narrow", url: origin.url("/gated/n\(index)/200000", host: "127.0.0.1"))
                    _ = try await api.createTask("narrow", url: origin.url("/gated/m\(index)/200000", host: "localhost"))
                    _ = try await api.createTask("wide", url: origin.url("/gated/w\(index)/200000"))
                }

                // act: let the held transfers go once the pool is full
                try await waitUntil { origin.requests.count >= 3 }
                for index in 0..<4 {
                    for prefix in ["n", "m", "w"] { origin.open(gate: "\(prefix)\(index)") }
                }
                for session in ["narrow", "wide"] {
                    let count = session == "narrow" ? 8 : 4
                    try await waitUntil(timeout: .seconds(60)) {
                        try await api.send(.GET, "/v1/sessions/\(session)/tasks?state=completed").decode(TaskPage.self).items
                            .count == count
                    }
                }

                // verify
                #expect(origin.requests.count == 12)
                #expect(origin.maxTotalInFlight == 3)
                #expect(origin.maxInFlight(host: "localhost:\(origin.port)") == 1)
            }
        }
    }

    @Test func higherPriorityRunsFirstThenCreationOrder() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(workerConcurrency: 1) { api in
                // setup: occupy the only worker, then queue tasks of mixed priority
                try await api.createSession("priority")
                _ = try await api.createTask("priority", url: origin.url("/gated/blocker/200000"))
                try await waitUntil { origin.requests.count == 1 }
                for (index, priority) in [0.1, 0.9, 0.5, 0.9].enumerated() {
                    _ = try await api.createTask("priority", url: origin.url("/files/10?n=\(index)"), extra: #", "priority": \#(priority)"#)
                }

                // act
                origin.open(gate: "blocker")
                try await api.waitForEvent("priority") { $0.type == "session.events_finished" }

                // verify
                #expect(origin.requests.dropFirst() == ["/files/10?n=1", "/files/10?n=3", "/files/10?n=2", "/files/10?n=0"])
            }
        }
    }

    @Test func aSessionWithManyTasksDoesNotStarveAnother() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(workerConcurrency: 1) { api in
                // setup: a busy session queues 30 tasks behind a blocker, then a second session queues one
                try await api.createSession("busy")
                try await api.createSession("quiet")
                _ = try await api.createTask("busy", url: origin.url("/gated/blocker/200000"))
                try await waitUntil { origin.requests.count == 1 }
                for index in 0..<30 {
                    _ = try await api.createTask("busy", url: origin.url("/files/10?busy=\(index)"))
                }
                _ = try await api.createTask("quiet", url: origin.url("/files/10?quiet"))

                // act
                origin.open(gate: "blocker")
                try await api.waitForCompletion("quiet", 1)

                // verify: the quiet session's task took the next turn, not the 31st
                let position = try #require(origin.requests.firstIndex(of: "/files/10?quiet"))
                #expect(position <= 2)
            }
        }
    }

    @Test func aTaskHeldBackByThePerHostLimitSaysSo() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("one-per-host", configuration: #"{"maximumConnectionsPerHost": 1}"#)
                _ = try await api.createTask("one-per-host", url: origin.url("/gated/first/200000"))
                _ = try await api.createTask("one-per-host", url: origin.url("/gated/second/200000"))
                try await waitUntil { origin.requests.count == 1 }

                #expect(try await api.task("one-per-host", 1).waitingReason == nil)
                #expect(try await api.task("one-per-host", 2).waitingReason == "hostLimit")

                origin.open(gate: "first")
                origin.open(gate: "second")
                #expect(try await api.waitForCompletion("one-per-host", 2).error == nil)
            }
        }
    }
}
