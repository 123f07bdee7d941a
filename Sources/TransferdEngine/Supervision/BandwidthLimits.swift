import Foundation
import Synchronization
import TransferdDomain

/// The limits every transfer of this instance passes through: the service's (`--max-bytes-per-second` and
/// `--bandwidth-schedule`, the lower of the two), its tenant's schedule (`transferd tenants set --bandwidth`), its
/// session's (`configuration.bandwidthSchedule`) and its own (`maxBytesPerSecond`). A tenant's and a session's limit
/// exist while transfers of theirs run, shared by them (without a schedule, without a rate); ``apply(tenants:at:)``
/// sets each to its schedule's rate at a moment (``BandwidthClock`` calls it at every change of period).
///
/// Limits hold on each instance: N instances let a tenant move N times its schedule's rate, at most.
package final class BandwidthLimits: Sendable {
    /// A tenant's or a session's limit, with the transfers that use it.
    private struct Shared {
        let limit: BandwidthLimit
        var schedule: BandwidthSchedule?
        var users: Int
    }

    private struct State {
        var tenantSchedules: [Int64: BandwidthSchedule] = [:]
        var tenants: [Int64: Shared] = [:]
        var sessions: [Int64: Shared] = [:]
    }

    /// The service's limit, shared by every transfer.
    package let service: BandwidthLimit
    /// Rung when a session's limit with a schedule is made: its periods may change sooner than the clock's next wake.
    package let scheduleAdded = Doorbell()
    private let serviceMaximum: Int64?
    private let serviceSchedule: BandwidthSchedule?
    private let clock: any WallClock
    private let state = Mutex(State())

    /// The limits of a service held to `maxBytesPerSecond` and to `schedule` (the lower applies), on `clock`'s time.
    package init(maxBytesPerSecond: Int64?, schedule: BandwidthSchedule?, clock: any WallClock) {
        serviceMaximum = maxBytesPerSecond
        serviceSchedule = schedule
        self.clock = clock
        service = BandwidthLimit(bytesPerSecond: Self.lower(maxBytesPerSecond, schedule?.rate(at: clock.now)))
    }

    /// Registers `transfer` with its tenant's and session's limits, and returns every limit it passes through; it
    /// leaves them with ``leave(_:)``.
    package func join(_ transfer: ActiveTransfer, sessionSchedule: BandwidthSchedule?) -> [BandwidthLimit] {
        let now = clock.now
        let (limits, added) = state.withLock { state in
            let added = sessionSchedule != nil && state.sessions[transfer.queue.sessionID] == nil
            let tenant = Self.join(&state.tenants, transfer.tenantID, schedule: state.tenantSchedules[transfer.tenantID], at: now)
            let session = Self.join(&state.sessions, transfer.queue.sessionID, schedule: sessionSchedule, at: now)
            return ([service, tenant, session, transfer.limit], added)
        }
        if added { scheduleAdded.ring() }
        return limits
    }

    /// Unregisters a transfer that joined; a tenant's or session's limit goes with its last transfer.
    package func leave(_ transfer: ActiveTransfer) {
        state.withLock { state in
            Self.leave(&state.tenants, transfer.tenantID)
            Self.leave(&state.sessions, transfer.queue.sessionID)
        }
    }

    /// Sets every limit to its schedule's rate at `date`, tenants' schedules being `tenants` from now on.
    package func apply(tenants: [Int64: BandwidthSchedule], at date: Date) {
        service.setRate(Self.lower(serviceMaximum, serviceSchedule?.rate(at: date)))
        state.withLock { state in
            state.tenantSchedules = tenants
            for (tenant, shared) in state.tenants {
                state.tenants[tenant]?.schedule = tenants[tenant]
                shared.limit.setRate(tenants[tenant]?.rate(at: date))
            }
            for shared in state.sessions.values { shared.limit.setRate(shared.schedule?.rate(at: date)) }
        }
    }

    /// The next moment after `date` when a limit's rate may change; nil when none will.
    package func nextChange(after date: Date) -> Date? {
        let schedules = state.withLock { state in
            Array(state.tenantSchedules.values) + state.sessions.values.compactMap(\.schedule)
        }
        return ([serviceSchedule].compactMap { $0 } + schedules).compactMap { $0.nextChange(after: date) }.min()
    }

    /// The shared limit of `key` with one user more, made at `schedule`'s rate at `date` for the first (without a
    /// schedule, a limit without a rate, which a tenant's schedule set later gives one).
    private static func join(_ shared: inout [Int64: Shared], _ key: Int64, schedule: BandwidthSchedule?, at date: Date) -> BandwidthLimit {
        let joined =
            shared[key].map { Shared(limit: $0.limit, schedule: $0.schedule, users: $0.users + 1) }
            ?? Shared(limit: BandwidthLimit(bytesPerSecond: schedule?.rate(at: date)), schedule: schedule, users: 1)
        shared[key] = joined
        return joined.limit
    }

    private static func leave(_ shared: inout [Int64: Shared], _ key: Int64) {
        guard let left = shared[key], left.users > 1 else { return shared[key] = nil }
        shared[key] = Shared(limit: left.limit, schedule: left.schedule, users: left.users - 1)
    }

    private static func lower(_ first: Int64?, _ second: Int64?) -> Int64? {
        [first, second].compactMap { $0 }.min()
    }
}
