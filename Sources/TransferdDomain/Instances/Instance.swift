import Foundation

/// This running transferd among those sharing one database: the id its leases carry, how long a lease lasts
/// unless renewed, and the clock leases are timed by. Ids must differ between instances that run at the same
/// time; an instance that starts again under its id takes back at once what it held before it stopped.
///
/// Leases keep the time every instance shares (the system's, kept in step by NTP), not the service's clock for
/// rules about time, which tests move by hours at once.
package struct Instance: Sendable {
    package let id: String
    /// How long a lease holds without renewal: how long a dead instance's work waits before another continues it.
    package let leaseTimeout: TimeInterval
    package let clock: any WallClock
    /// Whether other instances may share its database (PostgreSQL). If not, this instance owns it (SQLite): every
    /// lease in it is this instance's, and nothing changes it but this instance.
    package var sharesDatabase: Bool

    package init(id: String, leaseTimeout: TimeInterval, clock: any WallClock = SystemClock(), sharesDatabase: Bool = false) {
        self.id = id
        self.leaseTimeout = leaseTimeout
        self.clock = clock
        self.sharesDatabase = sharesDatabase
    }

    /// Whose leases are left over when this instance starts, for it to free at once: its own, or (nil) every one
    /// when it owns the database.
    package var leftoverLeasesOwner: String? {
        sharesDatabase ? id : nil
    }

    /// When a lease taken or renewed at `now` expires.
    package func leaseExpiry(from now: Date) -> Date {
        now.addingTimeInterval(leaseTimeout)
    }

    /// The moment `date` of the lease clock, on `other` (a loop's clock): when to wake for a lease's expiry.
    package func moment(_ date: Date, on other: any WallClock) -> Date {
        other.now.addingTimeInterval(date.timeIntervalSince(clock.now))
    }

    /// How often leases are renewed: three times a timeout, so that one or two failed renewals lose nothing.
    package var renewalInterval: TimeInterval {
        leaseTimeout / 3
    }

    /// How long after a lease was taken or renewed (by this instance's own clock, from when it asked) the instance
    /// still counts on it: four fifths of the timeout, leaving the rest for clocks that differ between instances.
    /// Past it, its transfer stops, before another instance may take the task.
    package var safeLeaseDuration: Duration {
        .milliseconds(Int64(leaseTimeout * 800))
    }

    /// Whether `id` may name an instance: 1 to 64 letters, digits and `.`, `_`, `:`, `-` (it travels in
    /// notifications separated by spaces).
    package static func isValid(id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || ".:_-".unicodeScalars.contains($0))
            }
    }
}
