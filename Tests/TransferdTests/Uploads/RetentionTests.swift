import Foundation
import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage
import TransferdTestOrigins

@testable import TransferdAPI
@testable import transferd

/// What outlives its retention period is removed by the sweeper, and the session's disk usage says so.
@Suite struct RetentionTests {
    @Test func aFinishedDownloadExpiresAfterTheSessionsRetentionPeriod() async throws {
        let clock = ManualClock()
        try await OriginServer.with { origin in
            try await TestService.with(configure: { $0.clock = clock }) { api in
                try await api.createSession("brief", configuration: #"{"retentionPeriod": 120}"#)
                try await api.createSession("kept")
                _ = try await api.createTask("brief", url: origin.url("/files/5000"))
                _ = try await api.createTask("kept", url: origin.url("/files/5000"))
                try await api.waitForCompletion("brief", 1)
                try await api.waitForCompletion("kept", 1)

                clock.advance(by: 60)
                try await clock.settle()
                #expect(try await api.task("brief", 1).file != nil, "kept for its retention period")
                clock.advance(by: 61)
                let expired = try await api.waitForEvent("brief") { $0.type == "task.content_expired" }
                #expect(expired.data.file?.size == 5000)
                #expect(try await api.task("brief", 1).file == nil)
                #expect(try await api.send(.GET, "/v1/sessions/brief/tasks/1/content").status == 404)
                #expect(try await api.session("brief").storedBytes == 0)
                #expect(try await api.session("kept").storedBytes == 5000, "the default retention is a week")
            }
        }
    }

    @Test func aStagedFileExpiresAfterItsRetention() async throws {
        let clock = ManualClock()
        try await TestService.with(configure: {
            $0.clock = clock
            $0.stagedFileLimits.retention = .seconds(3600)
        }) { api in
            try await api.stageFile("short-lived", size: 100)
            clock.advance(by: 3601)
            try await waitUntil { try await api.send(.GET, "/v1/files/short-lived").status == 404 }
        }
    }

    /// The sweeper on the real clock, end to end.
    @Test func theSweeperRunsOnTheRealClock() async throws {
        try await TestService.with(configure: {
            $0.sweepInterval = .milliseconds(50)
            $0.stagedFileLimits.retention = .milliseconds(300)
        }) { api in
            try await api.stageFile("short-lived", size: 100)
            try await waitUntil { try await api.send(.GET, "/v1/files/short-lived").status == 404 }
        }
    }
}
