import Foundation
import ServiceLifecycle
import TransferdDomain
import TransferdStorage

/// Keeps the bandwidth schedules' time: sets every limit's rate at each change of period (on the injected clock, so
/// a running transfer takes its new rate within ``BandwidthLimit/longestWait`` of it), and reads the tenants'
/// schedules again as often as their quotas (`transferd tenants set --bandwidth`).
package struct BandwidthClock: Service {
    let limits: BandwidthLimits
    let quotas: TenantQuotas
    let store: any Store
    let loop: WakeUpLoop

    package init(limits: BandwidthLimits, quotas: TenantQuotas, store: any Store, loop: WakeUpLoop) {
        (self.limits, self.quotas, self.store, self.loop) = (limits, quotas, store, loop)
    }

    package func run() async throws {
        await loop.run("apply bandwidth schedules") {
            let now = loop.clock.now
            let tenants = try await store.read { try await quotas.bandwidthSchedules($0) }
            limits.apply(tenants: tenants, at: now)
            let readAgain = now.addingTimeInterval(quotas.lifetime.timeInterval)
            return min(limits.nextChange(after: now) ?? readAgain, readAgain)
        }
    }
}
