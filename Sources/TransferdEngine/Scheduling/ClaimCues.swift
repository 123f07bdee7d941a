import Synchronization

/// What the scheduler knows of the queue between its claims, so that a wake that brought no claimable work costs one
/// read rather than a claim: whether work was announced since its last claim (a task queued, resumed or requeued, on
/// any instance), and whether that claim left due tasks unclaimed (held back by per-host limits, tenants' shares or
/// the discretionary window, or beyond the workers it had). Only the cost rests on them: a pass that does not claim
/// at once asks the store whether anything is claimable, and claims if so.
package final class ClaimCues: Sendable {
    private struct State {
        var announced = true
        var leftWork = true
    }

    private let state = Mutex(State())

    package init() {}

    /// Work was announced: the next pass claims without asking first.
    package func workAnnounced() {
        state.withLock { $0.announced = true }
    }

    /// Whether the next pass claims at once rather than asking first; it takes the announcement.
    package func claimsAtOnce() -> Bool {
        state.withLock { state in
            defer { state.announced = false }
            return state.announced || state.leftWork
        }
    }

    /// How a claim left the queue: with due tasks it did not take, or not.
    package func claimed(leavingWork: Bool) {
        state.withLock { $0.leftWork = leavingWork }
    }
}
