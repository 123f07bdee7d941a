import Foundation

/// What a claim reads of the queue before its heads, in one statement: when to look at the queue again, the
/// transfers under way, and where the queues start.
package struct QueueOverview: Sendable, Equatable {
    /// The earliest `nextAttemptAt` after now among queued tasks.
    package var nextAttempt: Date?
    /// When the first of the leases that other instances hold expires.
    package var nextForeignLeaseExpiry: Date?
    /// Whether some lease, anyone's, had expired (its task is taken back).
    package var leasesExpired: Bool
    /// The transfers under way on every instance, by session and origin, but for this instance's that are over.
    package var underway: [HostQueue: Int]
    /// The first queue, by session and origin, of queued tasks; nil when none is queued.
    package var firstQueue: HostQueue?
    /// Whether any background task is active: only then are its tasks looked for, ahead of their queues.
    package var anyBackgroundTaskActive: Bool
    /// Whether some queued task is due and leased to no one: one a claim may take, per-host limits allowing.
    package var anyClaimable: Bool

    package init(
        nextAttempt: Date? = nil,
        nextForeignLeaseExpiry: Date? = nil,
        leasesExpired: Bool = false,
        underway: [HostQueue: Int] = [:],
        firstQueue: HostQueue? = nil,
        anyBackgroundTaskActive: Bool = false,
        anyClaimable: Bool = false
    ) {
        (self.nextAttempt, self.nextForeignLeaseExpiry, self.leasesExpired) = (nextAttempt, nextForeignLeaseExpiry, leasesExpired)
        (self.underway, self.firstQueue, self.anyBackgroundTaskActive) = (underway, firstQueue, anyBackgroundTaskActive)
        self.anyClaimable = anyClaimable
    }
}
