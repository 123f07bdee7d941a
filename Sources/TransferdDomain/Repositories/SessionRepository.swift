import Foundation

/// Sessions, and what their representation needs besides the row.
package protocol SessionRepository {
    func find(id: Int64) async throws -> Session?
    /// The tenant's live (neither invalidated nor deleted) session with this identifier.
    func live(identifier: String, tenantID: Int64) async throws -> Session?
    /// The tenant's session with this identifier: the live one, else the most recently invalidated one; never one
    /// that was deleted.
    func latest(identifier: String, tenantID: Int64) async throws -> Session?
    /// ``latest(identifier:tenantID:)`` with its task `taskIdentifier` (nil when it has none), in one statement.
    func latest(identifier: String, tenantID: Int64, task taskIdentifier: Int64) async throws -> (session: Session, task: TransferTask?)?
    /// ``latest(identifier:tenantID:)`` with its ``Session/Details``, in one statement.
    func latestWithDetails(identifier: String, tenantID: Int64) async throws -> (session: Session, details: Session.Details)?
    /// Inserts a new session and returns it as stored.
    func insert(_ session: Session) async throws -> Session
    /// Writes the session's lifecycle fields (`state`, `cancelOnInvalidate`, `invalidatedAt`); its counters
    /// (sequences, task identifiers) belong to the store and are never written back.
    func updateState(of session: Session) async throws
    /// Writes the session's configuration, as a change of a live session left it.
    func updateConfiguration(of session: Session) async throws
    /// Marks the session deleted at `now` (``SessionDeletion``): gone for the API from then on.
    func markDeleted(id: Int64, at now: Date) async throws
    /// Writes the credentials kept for the session's protection spaces.
    func updateCredentials(of session: Session) async throws
    /// Sessions in creation order after the row id `cursor`: the tenant's, or every tenant's when `tenantID` is nil;
    /// none that was deleted.
    func list(after cursor: Int64, limit: Int, tenantID: Int64?) async throws -> [Session]
    func details(sessionIDs: [Int64]) async throws -> [Int64: Session.Details]
    /// Hands out the session's next `count` task identifiers, in order, in one statement that also reads the session
    /// (locking its row until the transaction ends), counts its tasks and reads its tenant's standing; nil when there
    /// is no such session. The standing is read as committed when the statement began: a creation in the same session
    /// that another instance commits while this one waits for the row is not counted in it.
    func takeTaskIdentifiers(_ count: Int, sessionID: Int64) async throws -> TakenTaskIdentifiers?

    /// Leases the sending of the session's deliveries to `owner` until `expiresAt`, unless another instance holds
    /// that lease at `now`; false when one does.
    func leaseDeliveries(sessionID: Int64, owner: String, until expiresAt: Date, at now: Date) async throws -> Bool
    /// Makes the delivery leases `owner` holds (every one, when nil) expired, as `TaskRepository.expireLeases` does.
    func expireDeliveryLeases(ownedBy owner: String?) async throws
    /// Renews the leases `owner` holds on these sessions' deliveries until `expiresAt`; a session whose lease `owner`
    /// no longer holds is missing from the answer.
    func renewDeliveryLeases(sessionIDs: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<Void>]
    /// Ends `owner`'s lease on the session's deliveries, if it holds it.
    func releaseDeliveries(sessionID: Int64, owner: String) async throws
    /// When the first of the delivery leases that instances other than `owner` hold expires.
    func nextDeliveryLeaseExpiry(notOwnedBy owner: String) async throws -> Date?
}
