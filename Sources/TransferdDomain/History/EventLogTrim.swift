import Foundation

/// Where a session's event log may be trimmed to: it loses events from its start only, so that what is left stays
/// gap-free above `earliestSequence`, and never an event written since `keptSince` or one whose webhook delivery is
/// still pending (a subscriber that has not acknowledged it keeps it, however old; a dead-lettered one does not).
package enum EventLogTrim {
    /// The age of one event: its sequence and when it was written.
    package struct EventAge: Sendable, Equatable {
        package var sequence: Int64
        package var createdAt: Date

        package init(sequence: Int64, createdAt: Date) {
            self.sequence = sequence
            self.createdAt = createdAt
        }
    }

    /// The last sequence to remove, given the oldest events still in the log (in order, the first right after
    /// `trimmedThrough`) and the sequence of the session's first pending delivery; `trimmedThrough` when nothing goes.
    package static func through(
        _ oldest: [EventAge],
        trimmedThrough: Int64,
        keptSince: Date,
        firstPendingDelivery: Int64?
    ) -> Int64 {
        var through = trimmedThrough
        for event in oldest {
            guard event.sequence == through + 1, event.createdAt < keptSince else { break }
            if let pending = firstPendingDelivery, event.sequence >= pending { break }
            through = event.sequence
        }
        return through
    }

    /// Whether the session's log has anything to trim at all: its first event is past keeping, and no pending
    /// delivery holds it. A session held by a subscriber that is away costs its removal pass nothing then.
    package static func mayTrim(_ session: HistorySession, keptSince: Date) -> Bool {
        guard let oldest = session.oldestEvent else { return false }
        let first = EventAge(sequence: session.eventsTrimmedThrough + 1, createdAt: oldest)
        let through = through(
            [first],
            trimmedThrough: session.eventsTrimmedThrough,
            keptSince: keptSince,
            firstPendingDelivery: session.firstPendingDelivery
        )
        return through > session.eventsTrimmedThrough
    }
}
