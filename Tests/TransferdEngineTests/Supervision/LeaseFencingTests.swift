import Foundation
import Testing
import TransferdDomain
import TransferdEngine

/// A transfer stops itself once its lease can no longer be counted on, before another instance may take the task
/// over, however long the renewal it waits for hangs; renewals in time let it run to its end.
@Suite struct LeaseFencingTests {
    @Test func aTransferWhoseLeaseIsNotRenewedStopsAtItsEnd() async {
        let leaseEnds = ContinuousClock.now + .milliseconds(300)
        let transfer = EngineFixtures.transfer(heldFor: .milliseconds(300))

        // an attempt that would run for ever, its bytes still arriving
        let outcome = await AttemptSupervisor.supervise(EngineFixtures.job(), transfer: transfer, clock: SystemClock()) {
            while !Task.isCancelled {
                transfer.add(1)
                try? await Task.sleep(for: .milliseconds(20))
            }
            return .interrupted
        }

        #expect(outcome == .interrupted)
        #expect(transfer.interruption == .leaseLost)
        #expect(ContinuousClock.now >= leaseEnds, "not before the lease's end")
    }

    @Test func renewalsInTimeLetTheTransferFinish() async {
        let transfer = EngineFixtures.transfer(heldFor: .milliseconds(500))
        let firstLeaseEnds = ContinuousClock.now + .milliseconds(500)

        let outcome = await AttemptSupervisor.supervise(EngineFixtures.job(), transfer: transfer, clock: SystemClock()) {
            transfer.leaseRenewalAnswered(.renewed(.running), safeUntil: .now + .seconds(60))
            while ContinuousClock.now < firstLeaseEnds + .milliseconds(500) {
                transfer.add(1)
                try? await Task.sleep(for: .milliseconds(50))
            }
            return .succeeded(nil)
        }

        #expect(outcome == .succeeded(nil))
        #expect(transfer.interruption == nil)
    }
}
