import Foundation
import GRDB
import TransferdDomain

/// The outbox's hot paths on PostgreSQL: each one statement, whatever the number of sessions or answers, since a
/// statement is a round trip.
struct PostgresOutbox: OutboxPaths {
    func pendingHeads(
        _ outbox: SQLDeliveryRepository,
        exceptSessions: [Int64],
        leasableBy owner: String,
        at now: Date
    ) async throws -> [DeliveryHead] {
        let busy = Set(exceptSessions)
        return try await outbox.db.fetchAll(Self.headsWalk, [owner, StoredDate.text(now)]) { row in
            let parts = row.parts(Self.headsWalkLayout)
            return try SQLDeliveryRepository.head(try Delivery(row: parts[0]), parts[0], endpoint: parts[1])
        }
        .filter { !busy.contains($0.delivery.sessionId) }
    }

    /// The heads of every session's pending deliveries whose subscriber is enabled, with their tenants, the earliest
    /// due first, in one statement: the same seek a session as SQLite's walk, each from the session before it (a
    /// statement a session was as many round trips as sessions with a backlog, every time the dispatcher looked).
    /// Each head's row, its subscriber's and its session's are read by their keys, in a lateral join per head
    /// (`OFFSET 0` keeps the planner from flattening it). Joined plainly, the planner chose by the statistics of
    /// the moment: a scan of every delivery (25 ms against 3 ms for 100 sessions and 10,000 deliveries), or, on a
    /// fresh database, every session against every head (10–17 ms against 1 ms for 100 sessions).
    private static let headsWalk = """
        WITH RECURSIVE heads (session_id, id) AS (
            (SELECT session_id, id FROM deliveries WHERE status = \(Delivery.Status.pending.sqlConstant) ORDER BY session_id, sequence LIMIT 1)
            UNION ALL
            SELECT next.session_id, next.id FROM heads CROSS JOIN LATERAL (
                SELECT session_id, id FROM deliveries
                WHERE status = \(Delivery.Status.pending.sqlConstant) AND session_id > heads.session_id
                ORDER BY session_id, sequence LIMIT 1
            ) AS next
        )
        SELECT d.* FROM heads h CROSS JOIN LATERAL (
            SELECT \(SQLDeliveryRepository.headColumns)
            FROM deliveries d \(SQLDeliveryRepository.headJoins)
            WHERE d.id = h.id AND \(SQLDeliveryRepository.endpointEnabled) AND s.sends_launch_events = 1 AND \(SQLSessionRepository.deliveriesFree)
            OFFSET 0
        ) AS d
        ORDER BY d.next_attempt_at
        """

    private static let headsWalkLayout = JoinLayout(after: ["endpoint_columns"])

    func record(
        _ outbox: SQLDeliveryRepository,
        _ answers: [AnsweredDelivery],
        releasing: [Int64],
        leasedTo owner: String,
        dueBy now: Date
    ) async throws -> [(recorded: Bool, next: DueDelivery?)] {
        let db = outbox.db
        guard !answers.isEmpty || !releasing.isEmpty else { return [] }
        var arguments: SQLArguments = []
        for (ordinal, answer) in answers.enumerated() {
            let (attempt, delivery) = (answer.attempt, answer.delivery)
            arguments += [ordinal, delivery.sequence, delivery.sessionId] + SQLDeliveryRepository.changes(of: delivery)
            arguments += [StoredDate.text(attempt.attemptedAt), attempt.statusCode, attempt.latencyMs, attempt.error, attempt.probe]
            arguments += [attempt.reply]
        }
        arguments += releasing.map { $0 as (any DatabaseValueConvertible)? }
        arguments += [StoredDate.text(now), owner, owner, owner]
        return try await db.fetchAll(Self.recording(answers: answers.count, releasing: releasing.count), arguments) { row in
            let parts = row.parts(Self.recordingLayout)
            let recorded = (parts[0]["recorded"] as Int64) == 1
            guard (parts[1]["id"] as Int64?) != nil else { return (recorded, nil) }
            return (recorded, DueDelivery(try Delivery(row: parts[1]), content: try outbox.content(Array(parts[2...]))))
        }
    }

    private static let recordingLayout = JoinLayout(after: ["next_columns", "content_columns", "webhook_columns", "task_columns"])

    /// The statement that records `answers` answers and gives back `releasing` more sessions (PostgreSQL). Every
    /// part waits for `gate`, which locks the sessions' rows in ascending order first, as every other write takes
    /// them: a statement that took them in the order of its plan could deadlock with a group commit. Data-modifying
    /// parts all run, whatever the outer query reads, and every part sees the rows as they were before the
    /// statement: a next delivery is the first pending one after the answered one, read with its content. The
    /// answered deliveries are
    /// read by their keys: their expected status is a column of the answers, so that the planner cannot scan
    /// every pending delivery instead (it did, from a fresh table's statistics: 3 ms for 43 answers of 3,472).
    private static func recording(answers: Int, releasing: Int) -> String {
        let (pending, delivered) = (Delivery.Status.pending.sqlConstant, Delivery.Status.delivered.sqlConstant)
        let answerRow =
            "(?::bigint, ?::bigint, ?::bigint, ?::text, ?::bigint, ?::text, ?::text, ?::text, ?::bigint, ?::text, ?::bigint, ?::bigint, ?::text, ?::bigint, ?::text, \(pending))"
        // `count` rows of `row`; none, typed, when `count` is zero.
        func rows(_ row: String, _ count: Int) -> String {
            guard count > 0 else { return "SELECT \(row.replacingOccurrences(of: "?", with: "NULL").dropFirst().dropLast()) WHERE FALSE" }
            return "VALUES " + Array(repeating: row, count: count).joined(separator: ", ")
        }
        return """
            WITH answered (ordinal, sequence, session_id, status, attempt_count, next_attempt_at, last_error, completed_at, delivery_id,
                           attempted_at, status_code, latency_ms, error, probe, reply, expected) AS (
                \(rows(answerRow, answers))
            ),
            released (session_id) AS (
                \(rows("(?::bigint)", releasing))
            ),
            locked AS MATERIALIZED (
                SELECT id FROM sessions WHERE id IN (SELECT session_id FROM answered UNION SELECT session_id FROM released)
                ORDER BY id FOR NO KEY UPDATE
            ),
            gate AS MATERIALIZED (SELECT COUNT(*) FROM locked),
            attempts AS (
                INSERT INTO \(DeliveryAttempt.table) (delivery_id, attempted_at, status_code, latency_ms, error, probe, reply)
                SELECT a.delivery_id, a.attempted_at, a.status_code, a.latency_ms, a.error, a.probe, a.reply FROM answered a, gate
            ),
            updated AS (
                UPDATE deliveries d SET status = a.status, attempt_count = a.attempt_count, next_attempt_at = a.next_attempt_at,
                    last_error = a.last_error, completed_at = a.completed_at
                FROM answered a, gate WHERE d.id = a.delivery_id AND d.status = a.expected
                RETURNING d.id
            ),
            next AS MATERIALIZED (
                SELECT a.delivery_id AS answered_id, n.* FROM answered a CROSS JOIN gate CROSS JOIN LATERAL (
                    SELECT d.* FROM deliveries d \(SQLDeliveryRepository.headJoins)
                    WHERE d.status = \(pending) AND d.session_id = a.session_id AND d.sequence > a.sequence
                      AND \(SQLDeliveryRepository.endpointEnabled) AND s.sends_launch_events = 1
                    ORDER BY d.sequence LIMIT 1 FOR UPDATE OF d
                ) AS n
                WHERE a.status = \(delivered) AND a.delivery_id IN (SELECT id FROM updated) AND n.next_attempt_at <= ?
            ),
            sessions_written AS (
                UPDATE sessions s SET
                    last_acknowledged_sequence = GREATEST(s.last_acknowledged_sequence, c.acknowledged),
                    delivery_owner = CASE WHEN c.unneeded AND s.delivery_owner = ? THEN NULL ELSE s.delivery_owner END,
                    delivery_lease_expires_at = CASE WHEN c.unneeded AND s.delivery_owner = ? THEN NULL ELSE s.delivery_lease_expires_at END
                FROM (
                    SELECT l.id,
                        (SELECT MAX(a.sequence) FROM answered a
                         WHERE a.session_id = l.id AND a.status = \(delivered) AND a.delivery_id IN (SELECT id FROM updated)) AS acknowledged,
                        NOT EXISTS (SELECT 1 FROM answered a JOIN next n ON n.answered_id = a.delivery_id WHERE a.session_id = l.id) AS unneeded
                    FROM locked l
                ) AS c
                WHERE s.id = c.id AND (c.acknowledged > s.last_acknowledged_sequence OR (c.unneeded AND s.delivery_owner = ?))
            )
            SELECT a.delivery_id IN (SELECT id FROM updated) AS recorded, NULL AS next_columns, n.*, NULL AS content_columns,
                \(SQLDeliveryRepository.contentColumns)
            FROM answered a LEFT JOIN next n ON n.answered_id = a.delivery_id
            LEFT JOIN events e ON e.id = n.event_id LEFT JOIN sessions s ON s.id = n.session_id
            LEFT JOIN webhooks w ON w.session_id = n.session_id \(WebhookSubscription.endpointJoin)
            LEFT JOIN tasks t ON t.session_id = n.session_id AND t.task_identifier = n.task_identifier AND \(SQLDeliveryRepository.carriesTask("e"))
            ORDER BY a.ordinal
            """
    }
}
