import Foundation
import TransferdDomain

/// Runs one attempt of a transfer until it ends, the client interrupts it (suspend, cancel, shutdown), no byte
/// moves for `timeoutIntervalForRequest`, the task outlives `timeoutIntervalForResource`, or its lease can no longer
/// be counted on (renewals that did not get through in time: another instance may take the task over next).
package enum AttemptSupervisor {
    package static func supervise(
        _ job: TransferJob,
        transfer: ActiveTransfer,
        clock: any WallClock,
        attempt: @escaping @Sendable () async -> TaskStateMachine.TransferOutcome
    ) async -> TaskStateMachine.TransferOutcome {
        let outcome = await withTaskGroup(of: TaskStateMachine.TransferOutcome?.self) { group in
            group.addTask { await attempt() }
            group.addTask {
                await transfer.waitForInterruption()
                return nil
            }
            group.addTask {
                await watch(transfer, timeout: job.requestTimeout, deadline: job.resourceDeadline, clock: clock)
                return nil
            }
            var outcome = TaskStateMachine.TransferOutcome.interrupted
            while let result = await group.next() {
                // The attempt ended, or something interrupted it: either way the other children must stop.
                group.cancelAll()
                if let result { outcome = result }
            }
            return outcome
        }
        switch (outcome, transfer.interruption) {
        case (.succeeded, _), (_, nil):
            return outcome
        case (_, .stalled):
            let seconds = job.requestTimeout.components.seconds
            return .failed(TransferError(code: .timedOut, message: "No data moved for \(seconds) s (timeoutIntervalForRequest)."))
        case (_, .outlivedResource):
            return .failed(.outlivedResource)
        case (_, .outOfSpace):
            return .failed(
                TransferError(code: .outOfSpace, message: "The data directory reached its free-space floor; the transfer waits for space.")
            )
        case (_, .byClient), (_, .leaseLost):
            return .interrupted
        }
    }

    /// Interrupts the transfer once no byte has arrived for `timeout`, once the task outlives its
    /// `timeoutIntervalForResource`, or once its lease is held no longer; returns when cancelled.
    private static func watch(_ transfer: ActiveTransfer, timeout: Duration, deadline: Date, clock: any WallClock) async {
        while !Task.isCancelled {
            let now = ContinuousClock.now
            let idle = now - transfer.lastActivity
            let left = Duration.milliseconds(Int64(deadline.timeIntervalSince(clock.now) * 1000))
            let leaseLeft = transfer.leaseHeldUntil - now
            if idle >= timeout {
                transfer.interrupt(.stalled)
                return
            }
            if left <= .zero {
                transfer.interrupt(.outlivedResource)
                return
            }
            if leaseLeft <= .zero {
                transfer.interrupt(.leaseLost)
                return
            }
            try? await Task.sleep(for: min(timeout - idle, left, leaseLeft))
        }
    }
}
