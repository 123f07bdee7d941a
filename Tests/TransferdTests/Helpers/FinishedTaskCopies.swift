import Foundation
import GRDB
import TransferdTestSupport

/// Copies of one finished task with its events, their webhook deliveries and the deliveries' attempts, written by the
/// database itself in one transaction (as `Tests/Benchmarks/suite/history.py` does): the history of a day of load in
/// seconds, where the API would take hours. The copies follow the task in its session, with task identifiers and
/// sequences after the session's last (the log stays gap-free), and finish one after another, evenly spread from
/// `start` over `span` seconds. On PostgreSQL the copied events take a commit position of their own, as a
/// transaction that writes events does.
///
/// The last copy is the template of the next copies, so that the copies go on once the first template's history is
/// removed; a template's rows are found by their keys, never by searching the session's history.
struct FinishedTaskCopies {
    let database: TestDatabase
    let sessionID: Int64
    /// The template: its task identifier, the first and last sequence of its events, and how many there are.
    private(set) var taskIdentifier: Int64
    private var sequences: ClosedRange<Int64>
    private let perCopy: Int64
    private let postgres: Bool
    private let columns: Columns

    /// Copies of the task `taskIdentifier` of the session whose row id is `sessionID`.
    init(database: TestDatabase, sessionID: Int64, taskIdentifier: Int64) async throws {
        (self.database, self.sessionID, self.taskIdentifier) = (database, sessionID, taskIdentifier)
        let events = try await database.rows(
            "SELECT MIN(sequence), MAX(sequence), COUNT(*) FROM events WHERE session_id = \(sessionID) AND task_identifier = \(taskIdentifier)"
        )[0]
        (sequences, perCopy) = (events[0]...events[1], events[2])
        postgres = SuiteDatabase.url(forDataDirectory: database.dataDirectory) != nil
        columns = try await Columns(database, postgres: postgres)
    }

    /// Writes `count` copies finished from `start` over `span` seconds, as the copies of `day` (which makes their
    /// delivery message ids unique).
    mutating func write(count: Int, start: Date, span: TimeInterval, day: Int) async throws {
        let session = try await database.rows("SELECT last_sequence, last_task_identifier FROM sessions WHERE id = \(sessionID)")[0]
        let (lastSequence, lastTask) = (session[0], session[1])
        let template = """
            e.session_id = \(sessionID) AND e.sequence BETWEEN \(sequences.lowerBound) AND \(sequences.upperBound)
              AND e.task_identifier = \(taskIdentifier)
            """
        let at = Self.moment(start: start, step: span / Double(count), postgres: postgres)
        let copies = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))"
        // Each statement reads its template's few rows first, then joins them with the copies' numbers (SQLite keeps
        // a CROSS JOIN's order): the other way round, each copy would search the session's whole history again.
        let events = "SELECT e.*, ROW_NUMBER() OVER (ORDER BY e.sequence) AS r FROM events e WHERE \(template)"
        /// The sequence of copy `n.i` of the template's event of rank `rank`.
        func sequence(rank: String) -> String { "\(lastSequence) + (n.i - 1) * \(perCopy) + \(rank)" }
        /// The message id of copy `n.i` of the delivery of the template's event of rank `rank`: as long as a real one
        /// (`msg_` and 32 characters), and unique.
        func messageID(rank: String) -> String {
            "'msg_' || \(padded("\(day)", 6)) || \(padded("\(sessionID)", 6)) || \(padded(rank, 10)) || \(padded("n.i", 10))"
        }
        /// `value` in decimal digits, zeros before it to `width`.
        func padded(_ value: String, _ width: Int) -> String {
            postgres
                ? "lpad(CAST(\(value) AS TEXT), \(width), '0')"
                : "substr('\(String(repeating: "0", count: width))' || CAST(\(value) AS TEXT), -\(width), \(width))"
        }
        let deliveries = "SELECT d.*, e.r FROM (\(events)) e CROSS JOIN deliveries d WHERE d.event_id = e.id"
        var statements = [
            """
            \(copies) INSERT INTO tasks (task_identifier, created_at, completed_at, \(columns.list("tasks")))
            SELECT \(lastTask) + n.i, \(at), \(at), \(columns.list("tasks", prefix: "t."))
            FROM (SELECT * FROM tasks WHERE session_id = \(sessionID) AND task_identifier = \(taskIdentifier)) t CROSS JOIN n
            """,
            """
            \(copies) INSERT INTO events (sequence, task_identifier, created_at, \(columns.list("events")))
            SELECT \(sequence(rank: "e.r")), \(lastTask) + n.i, \(at), \(columns.list("events", prefix: "e."))
            FROM (\(events)) e CROSS JOIN n
            """,
            """
            \(copies) INSERT INTO deliveries
                (event_id, sequence, task_identifier, message_id, created_at, completed_at, next_attempt_at, \(columns.list("deliveries")))
            SELECT copy.id, copy.sequence, copy.task_identifier, \(messageID(rank: "d.r")), \(at), \(at), \(at), \(columns.list("deliveries", prefix: "d."))
            FROM (\(deliveries)) d CROSS JOIN n
            JOIN events copy ON copy.session_id = \(sessionID) AND copy.sequence = \(sequence(rank: "d.r"))
            """,
            """
            \(copies) INSERT INTO delivery_attempts (delivery_id, attempted_at, \(columns.list("delivery_attempts")))
            SELECT copy.id, \(at), \(columns.list("delivery_attempts", prefix: "a."))
            FROM (SELECT a.*, d.r FROM (\(deliveries)) d CROSS JOIN delivery_attempts a WHERE a.delivery_id = d.id) a
            CROSS JOIN n
            JOIN deliveries copy ON copy.message_id = \(messageID(rank: "a.r"))
            """,
            """
            UPDATE sessions SET last_sequence = last_sequence + \(Int64(count) * perCopy),
                last_task_identifier = last_task_identifier + \(count) WHERE id = \(sessionID)
            """,
        ]
        if postgres {
            statements.append(
                """
                WITH head AS (UPDATE event_log_head SET position = position + 1 RETURNING position)
                INSERT INTO event_commits (position, transaction_id) SELECT position, pg_current_xact_id() FROM head
                """
            )
            try await database.execute("DO $$ BEGIN \(statements.joined(separator: ";\n")); END $$")
        } else {
            try await database.queue.write { [statements] db in for statement in statements { try db.execute(sql: statement) } }
        }
        taskIdentifier = lastTask + Int64(count)
        sequences = (lastSequence + Int64(count - 1) * perCopy + 1)...(lastSequence + Int64(count) * perCopy)
    }

    /// The finishing moment of copy `n.i`, as the store writes dates.
    private static func moment(start: Date, step: TimeInterval, postgres: Bool) -> String {
        let milliseconds = Int((step * 1000).rounded())
        let day = storedSecond(start)
        return postgres
            ? "to_char(TIMESTAMP '\(day)' + (n.i - 1) * \(milliseconds) * INTERVAL '1 millisecond', 'YYYY-MM-DD HH24:MI:SS.MS')"
            : "strftime('%Y-%m-%d %H:%M:%f', '\(day)', '+' || ((n.i - 1) * \(milliseconds) / 1000.0) || ' seconds')"
    }

    /// The columns a copy takes from its template as they are: all but the identity, and those a copy sets itself.
    private struct Columns {
        let byTable: [String: [String]]
        static let set: Set<String> = [
            "id", "task_identifier", "sequence", "created_at", "completed_at", "event_id", "message_id", "next_attempt_at",
            "delivery_id", "attempted_at", "transaction_id",
        ]

        init(_ database: TestDatabase, postgres: Bool) async throws {
            var byTable: [String: [String]] = [:]
            for table in ["tasks", "events", "deliveries", "delivery_attempts"] {
                let sql =
                    postgres
                    ? """
                    SELECT column_name FROM information_schema.columns
                    WHERE table_schema = current_schema() AND table_name = '\(table)' ORDER BY ordinal_position
                    """
                    : "SELECT name FROM pragma_table_info('\(table)')"
                byTable[table] = try await database.texts(sql).filter { !Self.set.contains($0) }
            }
            self.byTable = byTable
        }

        func list(_ table: String, prefix: String = "") -> String {
            byTable[table, default: []].map { prefix + $0 }.joined(separator: ", ")
        }
    }

    /// `date` to the second as the store writes dates (`2026-01-01 00:00:00`), which both databases compare and read.
    static func storedSecond(_ date: Date) -> String {
        date.formatted(.iso8601).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")
    }
}
