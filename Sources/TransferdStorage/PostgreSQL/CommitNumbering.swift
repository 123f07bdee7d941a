import TransferdDomain

/// A PostgreSQL transaction that appends events takes the next commit position of the events' log and holds the
/// log's head until it commits, so that positions commit in order and a reader of a tenant's events
/// (`TenantEventCursor`) sees them in order. Its first append takes the position in its own statement, with the
/// notification of the signals announced so far: a statement of their own before the commit was a round trip more.
/// What the commit announces later is notified before it commits. A savepoint that rolls back undoes both, and
/// `restore` forgets them.
final class CommitNumbering {
    let notifications: PostgresNotifications
    /// Whether this transaction has taken its commit position.
    private(set) var numbered = false
    /// The signals this transaction has notified.
    private(set) var notified: Set<Signal> = []

    init(notifications: PostgresNotifications) {
        self.notifications = notifications
    }

    /// What a savepoint restores when it rolls back.
    var state: (numbered: Bool, notified: Set<Signal>) { (numbered, notified) }

    func restore(_ state: (numbered: Bool, notified: Set<Signal>)) {
        (numbered, notified) = state
    }

    /// The clauses that an append's `WITH` ends with when it is the transaction's first (`numbered` is false): the
    /// position (`committed`), and, when `signals` fit one notification, its payload to send with
    /// `(SELECT pg_notify(?, ?) FROM committed)`. Marks them taken and sent.
    func take(announcing signals: Set<Signal>) -> (clauses: String, notification: [String]?)? {
        guard !numbered else { return nil }
        numbered = true
        let payloads = notifications.payloads(signals)
        guard payloads.count == 1 else { return (Self.clauses, nil) }
        notified = signals
        return (Self.clauses, [notifications.channel, payloads[0]])
    }

    /// The clauses that take the next position, as `committed`.
    static let clauses = clauses(when: "TRUE")

    /// The clauses that take the next position, as `committed`, when `condition` holds (a statement that may write
    /// no event takes none).
    static func clauses(when condition: String) -> String {
        """
        head AS (UPDATE event_log_head SET position = position + 1 WHERE \(condition) RETURNING position),
        committed AS (
            INSERT INTO event_commits (position, transaction_id) SELECT position, pg_current_xact_id() FROM head RETURNING position
        )
        """
    }

    /// Marks `signals` notified, by a statement of the caller's own.
    func notified(_ signals: Set<Signal>) {
        notified.formUnion(signals)
    }
}
