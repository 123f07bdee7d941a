import Foundation
import Synchronization

/// What the scheduler knows of the queue between its claims, so that a wake that brings no claimable work costs
/// nothing, or one read rather than a claim: whether work was announced since its last claim (a task queued, resumed
/// or requeued, on any instance), whether that claim left due tasks unclaimed (held back by per-host limits, tenants'
/// shares or the discretionary window, or beyond the workers it had), and, when the last claim or look found nothing
/// claimable, the moment something next falls due (a retry, a deferred start, the window's opening, another
/// instance's lease's expiry).
///
/// Between those, nothing becomes claimable unannounced, so a wake that only freed a worker (a transfer's end) rests:
/// every change that queues work announces it, and time is the pass's own wake.
package final class ClaimCues: Sendable {
    /// What a pass does.
    package enum Pass: Equatable, Sendable {
        /// Claims at once.
        case claim
        /// Asks the store whether anything is claimable first, and claims if so.
        case look
        /// Leaves the store alone until the moment given (nil: until woken).
        case rest(until: Date?)
    }

    private struct State {
        var announced = true
        var leftWork = true
        /// Set when the last claim or look found nothing claimable: when something next falls due (nil: nothing).
        var quiet: Date?? = nil
    }

    private let state = Mutex(State())

    package init() {}

    /// Work was announced: the next pass claims without asking first.
    package func workAnnounced() {
        state.withLock { $0.announced = true }
    }

    /// What the pass at `now` does; a claim takes the announcement.
    package func pass(at now: Date) -> Pass {
        state.withLock { state in
            if state.announced || state.leftWork {
                state.announced = false
                return .claim
            }
            if case .some(let due) = state.quiet, due.map({ now < $0 }) ?? true { return .rest(until: due) }
            state.quiet = nil
            return .look
        }
    }

    /// How a claim left the queue: with due tasks it did not take, or none until `nextDue`.
    package func claimed(leavingWork: Bool, nextDue: Date?) {
        state.withLock { state in
            state.leftWork = leavingWork
            state.quiet = leavingWork ? nil : .some(nextDue)
        }
    }

    /// A look found nothing claimable until `nextDue`.
    package func foundNothing(until nextDue: Date?) {
        state.withLock { $0.quiet = .some(nextDue) }
    }
}
