import Foundation
import TransferdDomain

/// The part of a write of one PostgreSQL statement outside any transaction (``PostgresTaskCreation``,
/// ``PostgresTaskEnding``) that appends its session's events: after a part `taken` that updates the session's row and
/// returns its `id`, its `last_sequence` (advanced by the events appended) and how many of the events are appended
/// (`appended`, the first ones: an end's last events are appended only when its session went idle), the events
/// numbered from it, their
/// deliveries to the session's subscriber (as its filter takes them), the commit's position (``CommitNumbering``),
/// and the notification of what the write announces (the outbox's only when a delivery was queued).
struct SessionAppend {
    /// Each event's task identifier, as an expression of `taken` and the event's `e.task`, whose placeholders
    /// take `Appending.taskIdentifierArguments`.
    let taskIdentifier: String

    /// The parts, after `taken`: `event_rows`, `new_events`, `queued`, `head` and `committed`.
    var clauses: String {
        """
        event_rows AS (
            SELECT e.*, taken.last_sequence - taken.appended + e.ordinal AS sequence, \(taskIdentifier) AS task_identifier,
                   CAST(? AS text) AS created_at, CAST(? AS text) AS traceparent
            FROM taken CROSS JOIN jsonb_to_recordset(CAST(? AS jsonb)) AS e(ordinal BIGINT, type TEXT, task BIGINT, data TEXT, message TEXT)
            WHERE e.ordinal <= taken.appended
        ),
        new_events AS (
            INSERT INTO events (session_id, sequence, type, task_identifier, data, created_at, traceparent)
            SELECT taken.id, e.sequence, e.type, e.task_identifier, e.data, e.created_at, e.traceparent
            FROM taken CROSS JOIN event_rows AS e ORDER BY e.ordinal
            RETURNING id, sequence
        ),
        queued AS (
            INSERT INTO deliveries (
                session_id, event_id, sequence, event_type, task_identifier, message_id, status, attempt_count, next_attempt_at,
                created_at
            )
            SELECT w.session_id, n.id, n.sequence, e.type, e.task_identifier, e.message, \(Delivery.Status.pending.sqlConstant), 0,
                   e.created_at, e.created_at
            FROM new_events AS n JOIN event_rows AS e ON e.sequence = n.sequence JOIN webhooks AS w ON w.session_id = ?
            WHERE w.event_types IS NULL OR CAST(w.event_types AS jsonb) @> jsonb_build_array(e.type)
            RETURNING 1
        ),
        \(CommitNumbering.clauses(when: "EXISTS (SELECT 1 FROM taken)"))
        """
    }

    /// The columns of the result that say what was appended: `event_ids` (in order), `queued`, and the
    /// notifications sent.
    static let results = """
        (SELECT string_agg(CAST(id AS text), ',' ORDER BY sequence) FROM new_events) AS event_ids,
        EXISTS (SELECT 1 FROM queued) AS queued,
        (SELECT pg_notify(?, ?) FROM committed) AS notified,
        (SELECT pg_notify(?, ?) WHERE EXISTS (SELECT 1 FROM queued)) AS outbox_notified
        """

    /// The events to append, each with its task (as `taskIdentifier` reads `e.task`), and what the write announces.
    struct Appending {
        let sessionID: Int64
        let events: [(task: Int64?, payload: EventPayload)]
        let createdAt: Date
        let traceparent: String?
        /// What the write announces beside the session's events.
        let signals: [Signal]
        /// The arguments of `taskIdentifier`'s placeholders.
        var taskIdentifierArguments: SQLArguments = []
    }

    /// The arguments of `clauses`, then those of `results`; nil when what the write announces does not fit one
    /// notification (the caller writes in a transaction).
    func arguments(
        _ appending: Appending,
        _ numbering: CommitNumbering,
        _ commitActions: CommitActions
    ) throws -> (clauses: SQLArguments, results: SQLArguments)? {
        let announced = Set(commitActions.signals + signals(of: appending))
        let notification = numbering.take(announcing: announced)?.notification ?? []
        let outbox = numbering.notifications.payloads([.outbox])
        guard notification.count == 2, outbox.count == 1 else { return nil }
        let rows: [StoredColumns] = try appending.events.enumerated().map { ordinal, event in
            [
                "ordinal": ordinal + 1, "type": event.payload.type.rawValue, "task": event.task, "data": try RowCoding.json(event.payload),
                "message": Delivery.newMessageID(),
            ]
        }
        let clauses: SQLArguments =
            appending.taskIdentifierArguments
            + [StoredDate.text(appending.createdAt), appending.traceparent, try JSONRows.text(rows), appending.sessionID]
        return (clauses, notification.map { $0 } + [numbering.notifications.channel, outbox[0]])
    }

    /// Records what the statement notified: the write's signals, and the outbox when a delivery was `queued`.
    func written(_ appending: Appending, queued: Bool, _ numbering: CommitNumbering, _ commitActions: CommitActions) {
        commitActions.signals += signals(of: appending) + (queued ? [.outbox] : [])
        numbering.notified(queued ? [.outbox] : [])
    }

    /// The events appended (as many as `ids`), with the ids and the first sequence the statement gave them.
    static func events(_ appending: Appending, ids: [Int64], firstSequence: Int64) -> [Event] {
        zip(appending.events, ids).enumerated().map { offset, pair in
            Event(
                id: pair.1,
                sessionId: appending.sessionID,
                sequence: firstSequence + Int64(offset),
                taskIdentifier: pair.0.task,
                payload: pair.0.payload,
                createdAt: appending.createdAt,
                traceparent: appending.traceparent
            )
        }
    }

    /// A list of ids as the statement returns it (`string_agg`).
    static func ids(_ list: String?) -> [Int64] {
        list.map { $0.split(separator: ",").compactMap { Int64($0) } } ?? []
    }

    private func signals(of appending: Appending) -> [Signal] {
        [.events(sessionID: appending.sessionID)] + appending.signals
    }
}
