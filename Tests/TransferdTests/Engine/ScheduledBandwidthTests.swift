import Foundation
import Testing
import TransferdDomain
import TransferdTestOrigins

@testable import transferd

/// Bandwidth schedules (issue 67): a session's limit switches at its period's edge on the injected clock, transfers
/// under one limit share it evenly, a transfer goes at the lowest limit that applies, and a tenant's limit is shared
/// by its sessions and no other tenant's. Rates are asserted as ceilings and shares, never as floors on speed.
@Suite struct ScheduledBandwidthTests {
    /// Monday 2026-11-30 00:00:00 UTC.
    static let monday = Date(timeIntervalSince1970: 1_795_996_800)
    static let mebibyte = 1 << 20

    @Test func aSessionsLimitSwitchesAtItsPeriodsEdgeOnTheInjectedClock() async throws {
        // 11:59:50 UTC; the session's limit holds until noon, and there is none after it.
        let clock = ManualClock(now: Self.monday.addingTimeInterval(12 * 3600 - 10))
        try await OriginServer.with { origin in
            try await TestService.with(configure: { $0.clock = clock }) { api in
                let session = try await api.createSession("noon", configuration: #"{"bandwidthSchedule": "00:00-12:00=32K"}"#)
                #expect(session.configuration.value1.bandwidthSchedule == "00:00-12:00=32K")
                _ = try await api.createTask("noon", url: origin.url("/files/20000000"))

                // verify: before noon, the download is held to 32 KiB/s
                let (moved, seconds) = try await Self.measure(moving: 96 << 10) { [try await api.task("noon", 1)] }
                Self.expectCeiling(moved, rate: 32 << 10, seconds: seconds)

                // act: noon passes; the 20 MB left would take ten minutes at 32 KiB/s
                clock.advance(by: 20)
                let task = try await api.waitForCompletion("noon", 1, timeout: .seconds(60))
                #expect(task.file?.sha256 == OriginContent.sha256(size: 20_000_000))
            }
        }
    }

    @Test func twoTransfersUnderOneLimitShareItEvenly() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("shared", configuration: #"{"bandwidthSchedule": "*=1M"}"#)
                for name in ["a", "b"] { _ = try await api.createTask("shared", url: origin.url("/files/16000000?\(name)")) }

                let (moved, seconds) = try await Self.measure(moving: 3 * Self.mebibyte) { try await api.tasks("shared") }

                Self.expectEvenShares(moved)
                Self.expectCeiling(moved, rate: Self.mebibyte, seconds: seconds)
            }
        }
    }

    /// A task's own limit below its session's holds it; the other transfer under the session's limit takes the rest.
    @Test func aTransferGoesAtTheLowestLimitAndLeavesTheRestToOthers() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("mixed", configuration: #"{"bandwidthSchedule": "*=1M"}"#)
                _ = try await api.createTask("mixed", url: origin.url("/files/16000000?slow"), extra: #", "maxBytesPerSecond": 262144"#)
                _ = try await api.createTask("mixed", url: origin.url("/files/16000000?fast"))

                let (moved, seconds) = try await Self.measure(moving: 3 * Self.mebibyte) { try await api.tasks("mixed") }

                Self.expectCeiling([moved[0]], rate: 256 << 10, seconds: seconds)
                Self.expectCeiling(moved, rate: Self.mebibyte, seconds: seconds)
                #expect(moved[1] >= moved[0] * 2, "the unlimited transfer takes what the slow one leaves: \(moved)")
            }
        }
    }

    /// `transferd tenants set t2 --bandwidth`: t2's two sessions share its limit evenly, while the other tenant's
    /// download is not held to it; the API and `tenants list` show the schedule, and one that is not is refused.
    @Test func aTenantsLimitIsSharedByItsSessionsAndNoOtherTenant() async throws {
        try await OriginServer.with { origin in
            let (service, t2, dataDirectory) = try await TwoTenants.start { dataDirectory in
                try await KeyManagement.command(["tenants", "set", "t2", "--bandwidth", "*=1024K"], dataDirectory: dataDirectory)
            }
            defer { service.stopIfRunning() }
            #expect(throws: (any Error).self) {
                try TransferdCommand.parseAsRoot(["tenants", "set", "t2", "--bandwidth", "*=1000", "--data-dir", dataDirectory])
            }
            #expect(try await t2.send(.GET, "/v1/tenant").decode(TenantView.self).bandwidthSchedule == "*=1M")
            #expect(
                try await KeyManagement.tenantLines(dataDirectory: dataDirectory).contains {
                    $0.hasPrefix("t2\t") && $0.hasSuffix("\t*=1M")
                }
            )

            for name in ["a", "b"] {
                try await t2.createSession(name)
                _ = try await t2.createTask(name, url: origin.url("/files/16000000?\(name)"))
            }
            try await service.api.createSession("other")
            _ = try await service.api.createTask("other", url: origin.url("/files/8000000?other"))

            let (moved, seconds) = try await Self.measure(moving: 3 * Self.mebibyte) {
                [try await t2.task("a", 1), try await t2.task("b", 1)]
            }
            Self.expectEvenShares(moved)
            Self.expectCeiling(moved, rate: Self.mebibyte, seconds: seconds)
            // 8 MB at t2's rate would take 8 s; the other tenant's download is not held to it
            let other = try await service.api.waitForCompletion("other", 1)
            #expect(other.file?.sha256 == OriginContent.sha256(size: 8_000_000))
            #expect(try await t2.task("a", 1).state == "running", "t2's downloads are still held to its limit")
        }
    }

    /// The bytes each task moved between the moment all had begun and the moment they had moved `bytes` more in all,
    /// and the seconds that took.
    static func measure(moving bytes: Int, _ read: () async throws -> [TaskView]) async throws -> (moved: [Int], seconds: Double) {
        try await waitUntil(timeout: .seconds(30)) { try await read().allSatisfy { $0.countOfBytesReceived > 0 } }
        let started = ContinuousClock.now
        let first = try await read().map(\.countOfBytesReceived)
        var last = first
        try await waitUntil(timeout: .seconds(60)) {
            last = try await read().map(\.countOfBytesReceived)
            return last.reduce(0, +) - first.reduce(0, +) >= bytes
        }
        return (zip(last, first).map { $0 - $1 }, (ContinuousClock.now - started).timeInterval)
    }

    /// Each one within 20 % of an even share of what they moved in all.
    static func expectEvenShares(_ moved: [Int], sourceLocation: SourceLocation = #_sourceLocation) {
        let share = Double(moved.reduce(0, +)) / Double(moved.count)
        for bytes in moved {
            #expect(abs(Double(bytes) - share) <= share * 0.2, "shares \(moved)", sourceLocation: sourceLocation)
        }
    }

    /// No more than the rate allows in the time, with the quarter second an idle limit lets through and a chunk
    /// counted ahead of its wait per transfer.
    static func expectCeiling(_ moved: [Int], rate: Int, seconds: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        let allowed = Double(rate) * (seconds + 0.25) + Double(moved.count * (64 << 10))
        #expect(Double(moved.reduce(0, +)) <= allowed, "\(moved) in \(seconds) s at \(rate) B/s", sourceLocation: sourceLocation)
    }
}
