import Foundation
import TransferdDomain

/// The outbox's hot paths, which each database takes its own way (`PostgreSQL/PostgresOutbox.swift`,
/// `SQLite/SQLiteOutbox.swift`): the sessions' heads, and subscribers' answers recorded with the next deliveries they
/// make due. Each is ``DeliveryRepository``'s operation of the same name, for the repository `outbox`, which
/// shares the rest of its SQL between the two (``SQLDeliveryRepository``).
protocol OutboxPaths: Sendable {
    func pendingHeads(
        _ outbox: SQLDeliveryRepository,
        exceptSessions: [Int64],
        leasableBy owner: String,
        at now: Date
    ) async throws -> [DeliveryHead]

    func record(
        _ outbox: SQLDeliveryRepository,
        _ answers: [AnsweredDelivery],
        releasing: [Int64],
        leasedTo owner: String,
        dueBy now: Date
    ) async throws -> [(recorded: Bool, next: DueDelivery?)]
}
