import Foundation
import TransferdDomain

/// The dispatcher's writes, recorded together for every session in a group commit: subscribers' answers, and
/// sessions whose turn is over, given back. One statement on PostgreSQL for the whole group
/// (``DeliveryRepository/record(_:releasing:leasedTo:dueBy:)``), which takes the sessions' rows in ascending order.
struct AnswerRecords: BatchWrite {
    enum Item: Sendable {
        /// An answer, when its event was written and when the answer came (for the delivery's metric).
        case answer(AnsweredDelivery, eventWrittenAt: Date, at: Date)
        /// A session whose turn ran out with deliveries still due: its lease goes back.
        case giveBack(sessionID: Int64)
    }

    let owner: String
    let clock: any WallClock
    let metrics: ServiceMetrics

    var spansSessions: Bool { true }

    /// Returns, for an answer that delivered its delivery, the session's next delivery when it is due now; the
    /// session's lease goes back otherwise.
    func write(_ items: [Item], _ repositories: any Repositories) async throws -> [DueDelivery?] {
        var (answers, releasing): ([AnsweredDelivery], [Int64]) = ([], [])
        for item in items {
            switch item {
            case .answer(let answered, _, _): answers.append(answered)
            case .giveBack(let sessionID): releasing.append(sessionID)
            }
        }
        var outcomes = try await repositories.deliveries.record(answers, releasing: releasing, leasedTo: owner, dueBy: clock.now)
            .makeIterator()
        let metrics = metrics
        return items.map { item in
            guard case .answer(let answered, let written, let now) = item, let outcome = outcomes.next() else { return nil }
            if outcome.recorded {
                repositories.afterCommit { metrics.delivered(answered.delivery.status, eventWrittenAt: written, at: now) }
            }
            return outcome.next
        }
    }
}
