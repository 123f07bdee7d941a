/// What a committed write tells the loops that wait for it, on this instance and, through the database, on every
/// other: work to claim, deliveries to send, events to stream, a transfer to stop. A signal only wakes; whoever
/// wakes reads what changed from the store, so a signal that arrives twice or for nothing does no harm.
package enum Signal: Hashable, Sendable {
    /// Work for the scheduler: a task queued, resumed or requeued, a lease released.
    case work
    /// A transfer ended and left no work behind: a worker and a per-host slot are free, which matters only to a
    /// scheduler that left due tasks unclaimed for want of them.
    case capacity
    /// Deliveries in the outbox, or a session's sending given up.
    case outbox
    /// An endpoint was disabled: a notice to tell.
    case notices
    /// A background task's deadline to watch.
    case deadlines
    /// A fetch schedule to look at: created, resumed or changed, or its run's task completed.
    case fetches
    /// A session was deleted: what it holds is to go.
    case history
    /// New events in a session's log.
    case events(sessionID: Int64)
    /// A task that may be transferring changed (suspended, cancelled, completed, given a new bandwidth limit): the
    /// instance running it reads it again.
    case task(id: Int64)
    /// An API key was revoked: caches forget it.
    case keyRevoked(id: String)
}

extension Signal {
    /// The signal as a word of a notification's text (`w`, `c`, `o`, `d`, `f`, `n`, `h`, `e12`, `t34`, `k<id>`).
    package var word: String {
        switch self {
        case .work: "w"
        case .capacity: "c"
        case .outbox: "o"
        case .deadlines: "d"
        case .fetches: "f"
        case .notices: "n"
        case .history: "h"
        case .events(let sessionID): "e\(sessionID)"
        case .task(let id): "t\(id)"
        case .keyRevoked(let id): "k\(id)"
        }
    }

    /// The signal a word names; nil for one this version does not know.
    package init?(word: Substring) {
        guard let first = word.first else { return nil }
        let rest = word.dropFirst()
        switch first {
        case "w" where rest.isEmpty: self = .work
        case "c" where rest.isEmpty: self = .capacity
        case "o" where rest.isEmpty: self = .outbox
        case "d" where rest.isEmpty: self = .deadlines
        case "f" where rest.isEmpty: self = .fetches
        case "n" where rest.isEmpty: self = .notices
        case "h" where rest.isEmpty: self = .history
        case "e": guard let id = Int64(rest) else { return nil }; self = .events(sessionID: id)
        case "t": guard let id = Int64(rest) else { return nil }; self = .task(id: id)
        case "k" where !rest.isEmpty: self = .keyRevoked(id: String(rest))
        default: return nil
        }
    }
}
