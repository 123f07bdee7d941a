import Foundation
import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage
import TransferdTestOrigins

@testable import TransferdAPI
@testable import transferd

/// Transient failures are retried with backoff; permanent ones fail at once.
@Suite struct RetryTests {
    @Test func transientFailuresAreRetriedUntilTheDownloadSucceeds() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("retry")
                _ = try await api.createTask("retry", url: origin.url("/flaky/a/2/50000"))
                let task = try await api.waitForCompletion("retry", 1)

                #expect(task.error == nil)
                #expect(task.file?.sha256 == OriginContent.sha256(size: 50000))
                #expect(task.attempts.map(\.outcome) == ["badServerResponse", "badServerResponse", "succeeded"])
                #expect(task.attempts.map(\.statusCode) == [503, 503, nil])
                let completions = try await api.events("retry").items.filter { $0.type == "task.completed" }
                #expect(completions.count == 1, "a retry is not a completion")
            }
        }
    }

    @Test func maximumRetriesBoundsTheAttempts() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("bounded", configuration: #"{"maximumRetries": 1}"#)
                _ = try await api.createTask("bounded", url: origin.url("/flaky/b/5/1000?status=502"))
                let task = try await api.waitForCompletion("bounded", 1)

                #expect(task.error?.code == "badServerResponse")
                #expect(task.error?.statusCode == 502)
                #expect(task.attempts.count == 2)
            }
        }
    }

    @Test func retryAfterIsHonouredAndTheTaskShowsWhyItWaits() async throws {
        let clock = ManualClock()
        try await OriginServer.with { origin in
            try await TestService.with(configure: { $0.clock = clock }) { api in
                // setup: the origin answers 503 with Retry-After: 2 once
                try await api.createSession("after")
                _ = try await api.createTask("after", url: origin.url("/flaky/c/1/1000?retryAfter=2"))
                try await waitUntil { try await api.task("after", 1).attempts.count == 1 }
                let waiting = try await api.task("after", 1)
                #expect(waiting.state == "running")
                #expect(waiting.waitingReason == "retryBackoff")
                #expect(try await api.events("after").items.allSatisfy { $0.type != "task.waiting_for_connectivity" })

                // act: a second of the two passes, then the rest
                clock.advance(by: 1.5)
                try await clock.settle()
                let early = try await api.task("after", 1)
                #expect(early.attempts.count == 1 && early.waitingReason == "retryBackoff", "not before Retry-After")
                clock.advance(by: 0.5)
                let task = try await api.waitForCompletion("after", 1)

                // verify
                #expect(task.error == nil)
                #expect(
                    task.attempts[1].endedAt.timeIntervalSince(task.attempts[0].endedAt) == 2,
                    "the second attempt waited for Retry-After"
                )
            }
        }
    }

    @Test func resumingATaskThatWaitsForARetryRunsItNow() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(retryPolicy: RetryPolicy(initialDelay: .seconds(3600), jitter: 0)) { api in
                try await api.createSession("resume-now")
                _ = try await api.createTask("resume-now", url: origin.url("/flaky/e/1/1000"))
                try await waitUntil { try await api.task("resume-now", 1).waitingReason == "retryBackoff" }

                _ = try await api.send(.POST, "/v1/sessions/resume-now/tasks/1/suspend")
                _ = try await api.send(.POST, "/v1/sessions/resume-now/tasks/1/resume")
                let task = try await api.waitForCompletion("resume-now", 1)
                #expect(task.error == nil)
                #expect(task.attempts.map(\.outcome) == ["badServerResponse", "succeeded"])
            }
        }
    }

    @Test func aTaskThatOutlivesItsResourceTimeoutFailsWithTimedOutAndResumeData() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(progressInterval: .milliseconds(50)) { api in
                // 4 MB at 100 kB/s needs 40 s; the task may live 20 s, long enough for a machine loaded by the whole
                // suite to start it and checkpoint bytes (8 s was not, in a local run).
                try await api.createSession("lifetime", configuration: #"{"timeoutIntervalForResource": 20}"#)
                _ = try await api.createTask("lifetime", url: origin.url("/files/4000000?name=lifetime&faults=0&bytesPerSecond=100000"))
                let task = try await api.waitForCompletion("lifetime", 1)

                #expect(task.error?.code == "timedOut")
                #expect(task.error?.resumeData != nil, "the bytes so far can be continued by a new task")
                #expect(task.file == nil)
            }
        }
    }

    @Test func aSessionsOwnBackoffBoundsOverrideTheServices() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(retryPolicy: RetryPolicy(initialDelay: .seconds(3600), maximumDelay: .seconds(3600))) { api in
                try await api.createSession("quick", configuration: #"{"retryInitialDelay": 0.05, "retryMaximumDelay": 0.1}"#)
                _ = try await api.createTask("quick", url: origin.url("/flaky/quick/3/1000"))
                let task = try await api.waitForCompletion("quick", 1)
                #expect(task.attempts.map(\.outcome) == ["badServerResponse", "badServerResponse", "badServerResponse", "succeeded"])
            }
        }
    }

    @Test func anOriginThatRefusesConnectionsForAWhileIsWaitedFor() async throws {
        let reserved = try ReservedPort()
        try await TestService.with { api in
            try await api.createSession("later")
            _ = try await api.createTask("later", url: "http://127.0.0.1:\(reserved.port)/files/300000")
            try await waitUntil { try await api.task("later", 1).waitingReason == "waitingForConnectivity" }

            reserved.release()
            try await OriginServer.with(port: reserved.port) { _ in
                let task = try await api.waitForCompletion("later", 1)
                #expect(task.file?.sha256 == OriginContent.sha256(size: 300_000))
                #expect(task.attempts.first?.outcome == "cannotConnectToHost")
            }
        }
    }

    @Test func anUnreachableOriginMakesTheTaskWaitForConnectivityAndSaysSoOnce() async throws {
        try await TestService.with { api in
            try await api.createSession("offline")
            // Port 9 (discard) is closed on the test machines: every attempt is refused.
            _ = try await api.createTask("offline", url: "http://127.0.0.1:9/file")
            try await waitUntil(timeout: .seconds(60)) { try await api.task("offline", 1).attempts.count >= 3 }

            let task = try await api.task("offline", 1)
            #expect(task.state == "running")
            #expect(Set(task.attempts.map(\.outcome)) == ["cannotConnectToHost"])
            let waiting = try await api.events("offline").items.filter { $0.type == "task.waiting_for_connectivity" }
            #expect(waiting.count == 1, "written once, not on every retry")
            _ = try await api.send(.POST, "/v1/sessions/offline/tasks/1/cancel")
            #expect(try await api.waitForCompletion("offline", 1).error?.code == "cancelled")
        }
    }

    @Test(arguments: [400, 403, 404, 410])
    func aPermanentStatusFailsAtOnce(status: Int) async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("permanent")
                _ = try await api.createTask("permanent", url: origin.url("/flaky/d/9/1000?status=\(status)"))
                let task = try await api.waitForCompletion("permanent", 1)

                #expect(task.error?.statusCode == status)
                #expect(task.attempts.count == 1)
            }
        }
    }

    @Test func backoffDoublesUpToItsBoundAndHonoursALongerRetryAfter() {
        let policy = RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(10), jitter: 0)
        #expect((1...6).map { policy.delay(afterFailures: $0, retryAfter: nil) } == [1, 2, 4, 8, 10, 10].map { .seconds($0) })
        #expect(policy.delay(afterFailures: 1, retryAfter: .seconds(30)) == .seconds(30))
        #expect(TransferError.badServerResponse(status: 503).isTransient)
        #expect(!TransferError.badServerResponse(status: 404).isTransient)
    }
}
