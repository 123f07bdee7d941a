import Foundation

/// The outbox's deliveries and their attempts.
package protocol DeliveryRepository {
    func find(id: Int64) throws -> Delivery?
    func find(eventID: Int64) throws -> Delivery?
    func update(_ delivery: Delivery) throws
    /// The session's deliveries after row id `cursor`, optionally with one status, each with its attempts.
    func list(sessionID: Int64, after cursor: Int64, status: Delivery.Status?, limit: Int) throws -> [(Delivery, [DeliveryAttempt])]
    func list(sessionID: Int64, status: Delivery.Status) throws -> [Delivery]
    /// Fails every pending delivery of the session with `message`.
    func failPending(sessionID: Int64, message: String, at: Date) throws
    /// Marks pending progress deliveries that a later one of the same task and type supersedes as coalesced,
    /// except in the sessions given (they have a delivery in flight).
    func coalesceSupersededProgress(exceptSessions: [Int64], at: Date) throws
    /// The oldest pending delivery of every session whose subscriber is enabled, except the sessions given.
    func pendingHeads(exceptSessions: [Int64]) throws -> [Delivery]
    func insertAttempt(_ attempt: DeliveryAttempt) throws
}
