import Foundation
import ServiceLifecycle
import TransferdDomain
import TransferdStorage

/// Keeps the bandwidth schedules' time: sets every limit's rate at each change of period (on the injected clock, so
/// a running transfer takes its new rate within ``BandwidthLimit/longestWait`` of it), and reads the tenants'
/// schedules again every `rereadInterval` (`transferd tenants set --bandwidth`, from any process).
package struct BandwidthClock: Service {
    /// How often the tenants' schedules are read again.
    static let rereadInterval: TimeInterval = 5

    let limits: BandwidthLimits
    let store: any Store
    let loop: WakeUpLoop

    package init(limits: BandwidthLimits, store: any Store, loop: WakeUpLoop) {
        (self.limits, self.store, self.loop) = (limits, store, loop)
    }

    package func run() async throws {
        await loop.run("apply bandwidth schedules") {
            let now = loop.clock.now
            let tenants = try await store.read { try await $0.tenants.quotas() }.compactMapValues(\.bandwidth)
            limits.apply(tenants: tenants, at: now)
            let readAgain = now.addingTimeInterval(Self.rereadInterval)
            return min(limits.nextChange(after: now) ?? readAgain, readAgain)
        }
    }
}
