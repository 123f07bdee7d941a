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
        case (.pending, .endpointRecovered):
            delivery.nextAttemptAt = min(delivery.nextAttemptAt, now)
            return .sendNow
        case (.pending, .retried):
            throw IllegalTransition(from: .pending, input: "retry")
        case (.pending, .superseded):
            delivery.status = .coalesced
            delivery.completedAt = now
            return .coalesce
        case (.pending, .abandoned(let reason)):
            return deadLetter(reason, at: now)

        case (.delivered, .retried), (.failed, .retried), (.coalesced, .retried):
            delivery.status = .pending
            delivery.attemptCount = 0
            delivery.nextAttemptAt = now
            delivery.completedAt = nil
            return .sendNow
        case (.delivered, _), (.failed, _), (.coalesced, _):
            // An answer to an attempt made before the delivery was finished otherwise, or news for a finished one.
            return .none
        }
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
