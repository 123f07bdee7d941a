/// What taking a session's next task identifiers reads as it takes them (`SessionRepository.takeTaskIdentifiers`):
/// all a creation checks before it inserts its tasks.
package struct TakenTaskIdentifiers: Sendable {
    /// The session, its row locked until the transaction ends.
    package let session: Session
    /// The identifiers taken, in order.
    package let identifiers: ClosedRange<Int64>
    /// The session's tasks before these.
    package let tasks: Int
    /// The session's tenant, with its quotas and what it holds; nil when the tenant is gone.
    package let tenant: TenantStanding?
    /// The row ids reserved for the new tasks, one per identifier and in their order, where the store hands them out
    /// ahead of the insert (PostgreSQL, for a few tasks: it then sends their insert with the statement that follows);
    /// nil where the insert assigns them.
    package let rowIDs: [Int64]?

    package init(session: Session, identifiers: ClosedRange<Int64>, tasks: Int, tenant: TenantStanding?, rowIDs: [Int64]?) {
        (self.session, self.identifiers, self.tasks, self.tenant, self.rowIDs) = (session, identifiers, tasks, tenant, rowIDs)
    }
}
