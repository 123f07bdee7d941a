import Foundation
import Testing
import TransferdTestOrigins

/// Bandwidth limits hold downloads to a rate; a limit is a floor on the time taken, so only that is asserted.
@Suite struct BandwidthLimitTests {
    @Test func aTasksLimitHoldsItsDownloadToTheRate() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("slow")
                let started = ContinuousClock.now
                let created = try await api.createTask("slow", url: origin.url("/files/1000000"), extra: #", "maxBytesPerSecond": 400000"#)
                let task = try await api.waitForCompletion("slow", 1)

                #expect(created.maxBytesPerSecond == 400_000)
                #expect(task.file?.sha256 == OriginContent.sha256(size: 1_000_000))
                #expect(ContinuousClock.now - started >= .seconds(2), "1 MB at 400 kB/s takes 2.5 s")
            }
        }
    }

    @Test func theServicesLimitIsSharedByEveryDownload() async throws {
        try await OriginServer.with { origin in
            try await TestService.with(maxBytesPerSecond: 500_000) { api in
                try await api.createSession("shared")
                let started = ContinuousClock.now
                _ = try await api.createTask("shared", url: origin.url("/files/750000?a"))
                _ = try await api.createTask("shared", url: origin.url("/files/750000?b"))
                try await api.waitForCompletion("shared", 1)
                try await api.waitForCompletion("shared", 2)

                #expect(ContinuousClock.now - started >= .milliseconds(2500), "1.5 MB at 500 kB/s in all takes 3 s")
            }
        }
    }

    @Test func patchChangesTheLimitOfARunningDownload() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("patch")
                // 10 MB at 100 kB/s would take 100 s, longer than the completion wait below.
                _ = try await api.createTask("patch", url: origin.url("/files/10000000"), extra: #", "maxBytesPerSecond": 100000"#)
                try await waitUntil { try await api.task("patch", 1).countOfBytesReceived > 0 }

                let reply = try await api.send(.PATCH, "/v1/sessions/patch/tasks/1", json: #"{"maxBytesPerSecond": null, "priority": 0.9}"#)
                #expect(reply.status == 200, "\(reply.text)")
                let patched = try reply.decode(TaskView.self)
                #expect(patched.maxBytesPerSecond == nil)
                #expect(patched.priority == 0.9)
                let task = try await api.waitForCompletion("patch", 1, timeout: .seconds(60))
                #expect(task.file?.sha256 == OriginContent.sha256(size: 10_000_000))

                let late = try await api.send(.PATCH, "/v1/sessions/patch/tasks/1", json: #"{"priority": 0.1}"#)
                #expect(late.status == 409)
            }
        }
    }
}
