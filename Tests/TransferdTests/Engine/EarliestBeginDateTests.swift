import Foundation
import Testing
import TransferdTestOrigins

/// A task with an `earliestBeginDate` waits, `running`, until then.
@Suite struct EarliestBeginDateTests {
    @Test func aTaskWaitsForItsEarliestBeginDateThenRuns() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                // setup
                try await api.createSession("later")
                let begin = Date().addingTimeInterval(4)
                let stamp = ISO8601DateFormatter().string(from: begin)
                let created = try await api.createTask(
                    "later",
                    url: origin.url("/files/1000"),
                    extra: #", "earliestBeginDate": "\#(stamp)""#
                )

                // verify: it waits with a reason, then starts no earlier than asked
                #expect(created.state == "running")
                #expect(created.waitingReason == "notBefore")
                let task = try await api.waitForCompletion("later", 1)
                #expect(task.error == nil)
                #expect(task.waitingReason == nil)
                #expect(origin.requests == ["/files/1000"])
                let started = try #require(task.startedAt)
                #expect(started >= begin.addingTimeInterval(-1), "started \(started), asked for \(begin)")
            }
        }
    }

    @Test func anEarlierTaskIsNotHeldUpByALaterOne() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(workerConcurrency: 1) { api in
                try await api.createSession("mixed")
                let stamp = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
                _ = try await api.createTask(
                    "mixed",
                    url: origin.url("/files/10?later"),
                    extra: #", "earliestBeginDate": "\#(stamp)", "priority": 1"#
                )
                _ = try await api.createTask("mixed", url: origin.url("/files/10?now"), extra: #", "priority": 0"#)

                let task = try await api.waitForCompletion("mixed", 2)
                #expect(task.error == nil)
                #expect(try await api.task("mixed", 1).waitingReason == "notBefore")
                #expect(origin.requests == ["/files/10?now"])
            }
        }
    }
}
