/// A lease this instance holds on a row (a task it transfers, a session whose webhook it sends), as far as the
/// instance can count on it by its own monotonic clock.
///
/// A claim holds it until an instant; each renewal that finds the row still this instance's pushes that instant on
/// (never back). Past the instant unrenewed, the lease is not counted on (what it covers stops), but it is not lost:
/// a renewal that still finds the row this instance's, once the store answers again, holds it anew. A renewal that
/// finds the row another instance's (or gone) loses it for good; only a new claim holds the row again.
package struct LeaseStateMachine: Sendable, Equatable {
    package enum State: Sendable, Equatable {
        case held(until: ContinuousClock.Instant)
        case lost
    }

    package private(set) var state: State

    /// A lease just claimed, counted on until `instant`.
    package init(heldUntil instant: ContinuousClock.Instant) {
        state = .held(until: instant)
    }

    /// A renewal answered: `renewal` as the store found the row (nil: no longer this instance's), counted on until
    /// `safeUntil` when renewed. Returns whether the lease is still this instance's.
    @discardableResult
    package mutating func renewalAnswered<Holding>(_ renewal: LeaseRenewal<Holding>?, safeUntil: ContinuousClock.Instant) -> Bool {
        switch (state, renewal) {
        case (.lost, _): return false
        case (.held, nil):
            state = .lost
            return false
        case (.held(let until), .renewed?):
            state = .held(until: max(until, safeUntil))
            return true
        case (.held, .busy?):
            return true
        }
    }

    /// How long the lease can still be counted on at `now`: zero once lost or past its instant.
    package func left(at now: ContinuousClock.Instant) -> Duration {
        switch state {
        case .held(let until): max(.zero, until - now)
        case .lost: .zero
        }
    }

    /// Whether the lease can be counted on at `now`.
    package func isHeld(at now: ContinuousClock.Instant) -> Bool {
        left(at: now) > .zero
    }
}
