import Foundation
import TransferdDomain

/// Runs one attempt of a transfer until it ends, the client interrupts it (suspend, cancel, shutdown), no byte
/// moves for `timeoutIntervalForRequest`, it moves fewer bytes than the service's minimum rate over a window, the
/// task outlives `timeoutIntervalForResource`, its tenant's worker is taken back, or its lease can no longer be
/// counted on (renewals that did not get through in time: another instance may take the task over next).
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
                await watch(transfer, job: job, clock: clock)
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
        case (_, .tooSlow(let bytes, let seconds)):
            let floor = job.minimumRate?.bytesPerSecond ?? 0
            return .failed(
                TransferError(
                    code: .timedOut,
                    message: "It moved \(bytes) bytes in \(Int(seconds)) s, below the service's minimum of \(floor) bytes a second."
                )
            )
        case (_, .outlivedResource):
            return .failed(.outlivedResource)
        case (_, .outOfSpace):
            return .failed(
                TransferError(code: .outOfSpace, message: "The data directory reached its free-space floor; the transfer waits for space.")
            )
        case (_, .overQuota(let breach)):
            return .failed(TransferError(code: .quotaExceeded, message: breach.detail))
        case (_, .byClient), (_, .leaseLost), (_, .preempted):
            return .interrupted
        }
    }

    /// Interrupts the transfer once no byte has arrived for the job's request timeout, once a window of its minimum
    /// rate ends with too few bytes moved, once the task outlives its `timeoutIntervalForResource`, or once its lease
    /// is held no longer; returns when cancelled.
    private static func watch(_ transfer: ActiveTransfer, job: TransferJob, clock: any WallClock) async {
        let (timeout, deadline) = (job.requestTimeout, job.resourceDeadline)
        var window = (start: ContinuousClock.now, bytes: transfer.counters.received)
        while !Task.isCancelled {
            let now = ContinuousClock.now
            let idle = now - transfer.lastActivity
            let left = Duration.milliseconds(Int64(deadline.timeIntervalSince(clock.now) * 1000))
            let leaseLeft = transfer.leaseLeft(at: now)
            if idle >= timeout {
                transfer.interrupt(.stalled)
                return
            }
            var windowLeft = Duration.seconds(3600)
            if let floor = job.minimumRate {
                let elapsed = now - window.start
                if elapsed >= floor.window {
                    let moved = transfer.counters.received - window.bytes
                    if Double(moved) < Double(floor.bytesPerSecond) * elapsed.timeInterval {
                        transfer.interrupt(.tooSlow(bytes: moved, seconds: elapsed.timeInterval))
                        return
                    }
                    window = (now, transfer.counters.received)
                }
                windowLeft = floor.window - (now - window.start)
            }
            if left <= .zero {
                transfer.interrupt(.outlivedResource)
                return
            }
            if leaseLeft <= .zero {
                transfer.interrupt(.leaseLost)
                return
            }
            try? await Task.sleep(for: min(timeout - idle, left, leaseLeft, windowLeft))
        }
    }
}
