import Foundation

/// When a claim must look at the queue again, read in one statement with the claim: the first retry or deferred
/// start that falls due, the first lease of another instance that expires, and whether a lease has expired already
/// (its task is taken back).
package struct QueueTimes: Sendable, Equatable {
    /// The earliest `nextAttemptAt` after now among queued tasks.
    package var nextAttempt: Date?
    /// When the first of the leases that other instances hold expires.
    package var nextForeignLeaseExpiry: Date?
    /// Whether some lease, anyone's, had expired.
    package var leasesExpired: Bool

    package init(nextAttempt: Date?, nextForeignLeaseExpiry: Date?, leasesExpired: Bool) {
        (self.nextAttempt, self.nextForeignLeaseExpiry, self.leasesExpired) = (nextAttempt, nextForeignLeaseExpiry, leasesExpired)
    }
}
