import Foundation

/// The lifecycle of one delivery as a value: `pending` until the subscriber answers 2xx (`delivered`), its attempts
/// run out or its subscriber goes (`failed`, dead-lettered), or a later progress event supersedes it (`coalesced`).
/// An operator's retry puts a finished delivery back to `pending`. No I/O happens here.
///
/// A failed attempt waits on the policy's long schedule, which alone decides when the delivery is dead-lettered. A
/// probe (an attempt sent because its endpoint was failing) is outside that schedule: its failure changes nothing of
/// the delivery, and its 2xx delivers it like any other.
package struct DeliveryStateMachine: Sendable {
    package enum Input: Sendable, Equatable {
        /// The subscriber's answer to an attempt; `probe` when the attempt was its endpoint's probe.
        case answered(DeliveryAnswer, probe: Bool)
        /// Its endpoint answered 2xx again, or was enabled: a waiting delivery is due now.
        case endpointRecovered
        /// An operator asked for it again (retry, replay, recover): a fresh set of attempts, due now.
        case retried
        /// A later progress event of the same task superseded it.
        case superseded
        /// Its subscriber was removed.
        case abandoned(reason: String)
    }

    package enum Action: Sendable, Equatable {
        case none
        /// Delivered: record that the subscriber acknowledged its event; the session's next delivery may go.
        case acknowledge
        /// Try again at `at`.
        case retry(at: Date)
        /// A probe failed: wait for the next probe, or for its own retry.
        case wait
        /// Due now.
        case sendNow
        /// Failed for good with `reason`; its event stays readable by polling.
        case deadLetter(reason: String)
        /// Coalesced into the later event.
        case coalesce
    }

    package typealias IllegalTransition = TransferdDomain.IllegalTransition<Delivery.Status>

    package private(set) var delivery: Delivery
    let policy: DeliveryPolicy

    package init(_ delivery: Delivery, policy: DeliveryPolicy) {
        self.delivery = delivery
        self.policy = policy
    }

    package mutating func handle(_ input: Input, at now: Date) throws(IllegalTransition) -> Action {
        switch (delivery.status, input) {
        case (.pending, .answered(let answer, let probe)):
            return answered(answer, probe: probe, at: now)
        case (.pending, .retried):
            throw IllegalTransition(from: .pending, input: "retry")
        default:
            // A change alike for every delivery it reaches; or, for a finished delivery, an answer to an attempt made
            // before it was finished otherwise, or news that no longer concerns it.
            guard let change = Self.change(input, from: delivery.status, at: now) else { return .none }
            delivery = change.applied(to: delivery)
            return change.action
        }
    }

    /// What `input` does alike to every delivery of status `status`; nil for an answer, which each delivery's
    /// attempts decide, and for what the status ignores or refuses.
    static func change(_ input: Input, from status: Delivery.Status, at now: Date) -> DeliveryChange? {
        switch (status, input) {
        case (.pending, .endpointRecovered): endpointRecovered(at: now)
        case (.pending, .superseded): superseded(at: now)
        case (.pending, .abandoned(let reason)): abandoned(reason: reason, at: now)
        case (.delivered, .retried), (.failed, .retried), (.coalesced, .retried): retried(from: status, at: now)
        case (.pending, _), (.delivered, _), (.failed, _), (.coalesced, _): nil
        }
    }

    /// What an endpoint's recovery does to each pending delivery of its sessions: due now, if it was due later.
    package static func endpointRecovered(at now: Date) -> DeliveryChange {
        DeliveryChange(from: .pending, status: .pending, nextAttempt: .atTheLatest(now), action: .sendNow)
    }

    /// What a later progress event of the same task does to a pending progress delivery.
    package static func superseded(at now: Date) -> DeliveryChange {
        DeliveryChange(from: .pending, status: .coalesced, completedAt: .some(now), action: .coalesce)
    }

    /// What the removal of its subscriber does to a pending delivery.
    package static func abandoned(reason: String, at now: Date) -> DeliveryChange {
        DeliveryChange(from: .pending, status: .failed, completedAt: .some(now), lastError: reason, action: .deadLetter(reason: reason))
    }

    /// What an operator's retry does to a finished delivery of `status`: a fresh set of attempts, due now.
    package static func retried(from status: Delivery.Status, at now: Date) -> DeliveryChange {
        DeliveryChange(from: status, status: .pending, attemptCount: 0, nextAttempt: .at(now), completedAt: .some(nil), action: .sendNow)
    }

    private mutating func answered(_ answer: DeliveryAnswer, probe: Bool, at now: Date) -> Action {
        switch answer {
        case .answered(let status, _) where (200..<300).contains(status):
            delivery.attemptCount += 1
            delivery.status = .delivered
            delivery.completedAt = now
            delivery.lastError = nil
            return .acknowledge
        case .answered(410, _):
            delivery.attemptCount += 1
            return deadLetter("The subscriber answered 410 Gone; the webhook is disabled.", at: now)
        default:
            delivery.lastError = answer.error ?? "The subscriber answered \(answer.status ?? 0)."
            guard !probe else { return .wait }
            delivery.attemptCount += 1
            guard let delay = policy.delay(afterFailedAttempts: delivery.attemptCount, retryAfter: answer.retryAfter) else {
                return deadLetter(delivery.lastError ?? "", at: now)
            }
            delivery.nextAttemptAt = now.addingTimeInterval(delay.timeInterval)
            return .retry(at: delivery.nextAttemptAt)
        }
    }

    private mutating func deadLetter(_ reason: String, at now: Date) -> Action {
        delivery.status = .failed
        delivery.completedAt = now
        delivery.lastError = reason
        return .deadLetter(reason: reason)
    }
}
