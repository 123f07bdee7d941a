import Foundation
import TransferdDomain

/// The dispatcher's writes, recorded together for every session in a group commit: subscribers' answers, and
/// sessions whose turn is over, given back. One statement on PostgreSQL for the whole group
/// (``DeliveryRepository/record(_:releasing:leasedTo:dueBy:)``), which takes the sessions' rows in ascending order;
/// then what the answers told their endpoints, each endpoint's row taken after them, in key order.
struct AnswerRecords: BatchWrite {
    enum Item: Sendable {
        /// An answer, when its event was written and when the answer came (for the delivery's metric).
        case answer(AnsweredDelivery, eventWrittenAt: Date, at: Date)
        /// A session whose turn ran out with deliveries still due: its lease goes back.
        case giveBack(sessionID: Int64)
    }

    let owner: String
    let clock: any WallClock
    let policy: DeliveryPolicy
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
        let now = clock.now
        var outcomes = try await repositories.deliveries.record(answers, releasing: releasing, leasedTo: owner, dueBy: now)
            .makeIterator()
        try await report(answers.compactMap(\.endpoint), repositories, at: now)
        let metrics = metrics
        return items.map { item in
            guard case .answer(let answered, let written, let now) = item, let outcome = outcomes.next() else { return nil }
            if outcome.recorded {
                repositories.afterCommit { metrics.delivered(answered.delivery.status, eventWrittenAt: written, at: now) }
            }
            return outcome.next
        }
    }

    /// Applies to each endpoint, through its machine, what the answers told it, in the order they came. An endpoint
    /// that comes back wakes the dispatchers, which make its sessions' waiting heads due; one disabled leaves a notice
    /// to tell (``EndpointNotices``).
    private func report(_ reports: [AnsweredDelivery.EndpointReport], _ repositories: any Repositories, at now: Date) async throws {
        for (key, told) in Dictionary(grouping: reports, by: \.key).sorted(by: { $0.key < $1.key }) {
            let stored = try await repositories.endpoints.find(key: key)
            var endpoint = stored ?? WebhookEndpoint(key: key, tenantId: told[0].tenantID, updatedAt: now)
            var machine = EndpointHealthMachine(endpoint.health, policy: policy)
            var changed = false
            for report in told {
                let action = machine.handle(report.input, at: now)
                guard action != .none else { continue }
                changed = true
                if let error = report.error { endpoint.lastError = error }
                if case .disable(let reason) = action {
                    try await repositories.notices.insert(
                        EndpointNotice(tenantId: endpoint.tenantId, endpointKey: key, reason: reason, at: now)
                    )
                    repositories.announce(.notices)
                }
            }
            guard changed else { continue }
            endpoint.health = machine.health
            endpoint.updatedAt = now
            try await repositories.endpoints.save(endpoint)
            if endpoint.health == .catchingUp { repositories.announce(.outbox) }
        }
    }
}
