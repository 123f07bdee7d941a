import Foundation
import Testing
import TransferdDomain
import TransferdEngine

/// A transfer stops itself once its lease can no longer be counted on, before another instance may take the task
/// over, however long the renewal it waits for hangs; renewals in time let it run to its end.
@Suite struct LeaseFencingTests {
    static let job = TransferJob(
        task: {
            var task = TransferTask(
                sessionId: 1,
                taskIdentifier: 1,
                kind: .download,
                state: .running,
                priority: 0.5,
                originalRequest: TransferRequest(url: "http://127.0.0.1:9/file", method: "GET", headers: [:]),
                origin: "http://127.0.0.1:9",
                createdAt: Date()
            )
            task.id = 1
            return task
        }(),
        configuration: .default,
        upload: nil,
        maximumDownloadBytes: 1 << 30
    )

    static func transfer(heldFor duration: Duration) -> ActiveTransfer {
        ActiveTransfer(
            taskID: 1,
            queue: HostQueue(sessionID: 1, origin: "http://127.0.0.1:9"),
            maxBytesPerSecond: nil,
            leaseHeldUntil: .now + duration
        )
    }

    @Test func aTransferWhoseLeaseIsNotRenewedStopsAtItsEnd() async {
        let transfer = Self.transfer(heldFor: .milliseconds(300))
        let leaseEnds = transfer.leaseHeldUntil

        // an attempt that would run for ever, its bytes still arriving
        let outcome = await AttemptSupervisor.supervise(Self.job, transfer: transfer, clock: SystemClock()) {
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
        let transfer = Self.transfer(heldFor: .milliseconds(500))
        let firstLeaseEnds = transfer.leaseHeldUntil

        let outcome = await AttemptSupervisor.supervise(Self.job, transfer: transfer, clock: SystemClock()) {
            transfer.leaseRenewed(until: .now + .seconds(60))
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
