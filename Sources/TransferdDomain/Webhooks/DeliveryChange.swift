import Foundation

/// What ``DeliveryStateMachine`` does alike to every delivery of one status that an input reaches, as the columns it
/// sets, so that storage can write it to many deliveries in one statement as the machine decides it for one:
/// coalescing superseded progress, dead-lettering a removed subscriber's deliveries, making an endpoint's waiting
/// heads due, and putting dead-lettered deliveries back in the queue.
package struct DeliveryChange: Sendable, Equatable {
    /// When the next attempt goes.
    package enum NextAttempt: Sendable, Equatable {
        case at(Date)
        /// At this time, or earlier when it was due earlier.
        case atTheLatest(Date)
    }

    /// The status of the deliveries it changes.
    package let from: Delivery.Status
    package let status: Delivery.Status
    /// The attempt count it sets, when it sets one.
    package var attemptCount: Int?
    package var nextAttempt: NextAttempt?
    /// The completion time it sets; `.some(nil)` clears it.
    package var completedAt: Date??
    /// The error it records, when it records one.
    package var lastError: String?
    /// What the machine answers for each delivery it changes.
    package let action: DeliveryStateMachine.Action

    /// `delivery` (of status `from`) as the change leaves it.
    package func applied(to delivery: Delivery) -> Delivery {
        var changed = delivery
        changed.status = status
        if let attemptCount { changed.attemptCount = attemptCount }
        switch nextAttempt {
        case .at(let date): changed.nextAttemptAt = date
        case .atTheLatest(let date): changed.nextAttemptAt = min(changed.nextAttemptAt, date)
        case nil: break
        }
        if let completedAt { changed.completedAt = completedAt }
        if let lastError { changed.lastError = lastError }
        return changed
    }
}
