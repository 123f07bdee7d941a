import Foundation
import Synchronization
import Testing
import TransferdDomain
import TransferdEngine

/// A clock that stays where the test put it.
private final class StillClock: WallClock {
    private let moment: Mutex<Date>
    init(_ date: Date) { moment = Mutex(date) }
    var now: Date { moment.withLock { $0 } }
    func set(_ date: Date) { moment.withLock { $0 = date } }
    func sleep(until deadline: Date?, orUntil wakeUp: Doorbell) async {}
}

/// Bytes each taker moved.
private final class Takings: Sendable {
    private let moved = Mutex([0, 0])
    func add(_ bytes: Int, to taker: Int) { moved.withLock { $0[taker] += bytes } }
    var all: [Int] { moved.withLock { $0 } }
}

/// The limits transfers pass through: a tenant's and a session's are shared while their transfers run and go with
/// the last one, each takes its schedule's rate at the moment applied, and a limit is shared by bytes, in turn,
/// whatever the chunk sizes.
@Suite struct BandwidthLimitsTests {
    /// Monday 2026-11-30 11:00 UTC.
    static let eleven = Date(timeIntervalSince1970: 1_795_996_800 + 11 * 3600)

    static func transfer(_ id: Int64, tenant: Int64, session: Int64) -> ActiveTransfer {
        ActiveTransfer(
            taskID: id,
            kind: .download,
            queue: HostQueue(sessionID: session, origin: "http://127.0.0.1"),
            tenantID: tenant,
            maxBytesPerSecond: nil,
            leaseHeldUntil: .now + .seconds(60)
        )
    }

    @Test func aSessionsLimitIsSharedWhileItsTransfersRunAndFollowsItsSchedule() throws {
        let clock = StillClock(Self.eleven)
        let limits = BandwidthLimits(maxBytesPerSecond: 1 << 30, schedule: nil, clock: clock)
        let schedule = try BandwidthSchedule(utc: "00:00-12:00=32K")
        let (first, second) = (Self.transfer(1, tenant: 1, session: 10), Self.transfer(2, tenant: 1, session: 10))

        let firstLimits = limits.join(first, sessionSchedule: schedule)
        let secondLimits = limits.join(second, sessionSchedule: schedule)
        #expect(firstLimits.count == 4 && firstLimits[0] === limits.service && firstLimits[3] === first.limit)
        #expect(firstLimits[2] === secondLimits[2], "one limit for the session")
        #expect(firstLimits[1] === secondLimits[1], "one limit for the tenant")
        #expect(firstLimits.map(\.bytesPerSecond) == [1 << 30, nil, 32 << 10, nil])
        #expect(limits.nextChange(after: Self.eleven) == Self.eleven.addingTimeInterval(3600))

        // noon: the session's period ends; a tenant's schedule set meanwhile applies to its limit
        limits.apply(tenants: [1: try BandwidthSchedule(utc: "*=2M")], at: Self.eleven.addingTimeInterval(3600))
        #expect(firstLimits.map(\.bytesPerSecond) == [1 << 30, 2 << 20, nil, nil])

        // the session's limit goes with its last transfer, and so does its next change
        limits.leave(first)
        #expect(limits.join(Self.transfer(3, tenant: 1, session: 10), sessionSchedule: schedule)[2] === firstLimits[2])
        limits.leave(second)
        limits.leave(Self.transfer(3, tenant: 1, session: 10))
        clock.set(Self.eleven)
        let afresh = limits.join(Self.transfer(4, tenant: 1, session: 10), sessionSchedule: schedule)
        #expect(afresh[2] !== firstLimits[2] && afresh[2].bytesPerSecond == 32 << 10)
    }

    @Test func theServicesScheduleAndItsConstantLimitTheLowerApplies() throws {
        let schedule = try BandwidthSchedule("00:00-12:00=1M, *=off", timeZone: .gmt)
        let limits = BandwidthLimits(maxBytesPerSecond: 4 << 20, schedule: schedule, clock: StillClock(Self.eleven))
        #expect(limits.service.bytesPerSecond == 1 << 20)
        #expect(!DiscretionaryHours(schedule: schedule).contains(Self.eleven))
        limits.apply(tenants: [:], at: Self.eleven.addingTimeInterval(3600))
        #expect(limits.service.bytesPerSecond == 4 << 20)
        #expect(DiscretionaryHours(schedule: schedule).contains(Self.eleven.addingTimeInterval(3600)))
    }

    /// Two takers of one limit of 1 MiB/s, one in chunks of 64 KiB and one in chunks of 16 KiB, for two seconds: each
    /// moves within 20 % of half of what both moved (taken a chunk at a time in turn, the larger chunks would move 4
    /// times more). A piece takes 16 ms at the rate, longer than a loaded machine's late wake-ups.
    @Test func takersShareALimitByBytesWhateverTheirChunkSizes() async throws {
        let limit = BandwidthLimit(bytesPerSecond: 1 << 20)
        let moved = Takings()
        let end = ContinuousClock.now + .seconds(2)
        await withThrowingTaskGroup(of: Void.self) { group in
            for (taker, chunk) in [64 << 10, 16 << 10].enumerated() {
                group.addTask {
                    while ContinuousClock.now < end {
                        try await BandwidthLimit.consume(chunk, through: [limit], whileWaiting: {})
                        moved.add(chunk, to: taker)
                    }
                }
            }
        }
        let (large, small) = (moved.all[0], moved.all[1])
        let half = Double(large + small) / 2
        #expect(abs(Double(large) - half) <= half * 0.2 && abs(Double(small) - half) <= half * 0.2, "\(large) and \(small)")
    }
}
