/// A read of an event log from a point its trimming has passed: events after the reader's cursor are gone, so the
/// read is refused rather than answered with a silent gap. It names where the log now begins.
package enum TrimmedHistory: Error, Equatable, Sendable {
    /// A session's log, which now begins at `earliestSequence`.
    case session(earliestSequence: Int64)
    /// A tenant's events, whose oldest removed event stood at `trimmedThrough` in the tenant's order.
    case tenant(trimmedThrough: TenantEventCursor)

    /// What the client reads.
    package var detail: String {
        switch self {
        case .session(let earliest):
            "The events asked for were removed as history past keeping; the session's log now begins at sequence "
                + "\(earliest). Read from `after=\(earliest - 1)`, and take the tasks' states from the tasks themselves."
        case .tenant(let trimmed):
            "Events after this cursor were removed as history past keeping; read from `after=\(trimmed)`, or from "
                + "`after=now`, and take the tasks' states from the tasks themselves."
        }
    }
}
