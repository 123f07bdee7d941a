import Foundation
import Testing
import TransferdDomain
import TransferdServices
import TransferdTestOrigins
import TransferdTestSupport

@testable import transferd

/// A year of steady load, simulated with the injected clock (issue 64's target; a benchmark that
/// `Tests/Benchmarks/run --only year` runs, skipped by the suite): 10,000 downloads a day with a webhook, and 100
/// fetch schedules at 60 s (1,440 runs each a day), under a history retention of 7 days. The database's size at each
/// day's end is printed as a curve, and at day 365 it is at most 1.2 times its size at day 8.
///
/// The service runs for real on its own clock, which moves a day at a time: its retention sweep, its fetch clock
/// (each schedule's real run against a real origin whose feeds change daily, so that versions past `keepVersions`
/// go), and its history removal. The day's history is written by the database itself, as copies of a real
/// download's and of each schedule's real `304` run's rows (``FinishedTaskCopies``): through the API a year would
/// take weeks. History goes at full speed (``YearOfHistory/removalPace``). On PostgreSQL, autovacuum gets what a real day would give it: after each day, a table with more dead
/// rows than autovacuum's threshold is vacuumed (autovacuum looks every minute; a simulated day lasts seconds).
@Suite(.enabled(if: YearOfHistory.days != nil, "a benchmark: TRANSFERD_YEAR_DAYS=365 swift test --filter YearOfHistory"))
struct YearOfHistoryTests {
    @Test func theDatabaseKeepsItsSizeThroughAYear() async throws {
        let days = try #require(YearOfHistory.days)
        let simulation = try YearOfHistorySimulation(directory: YearOfHistory.directory)
        // A day's history is one transaction of hundreds of MiB, and so is a checkpoint of it: they may wait long
        // for each other.
        let database = TestDatabase(dataDirectory: simulation.dataDirectory, busyTimeout: 600)
        let clock = ManualClock(now: simulation.now)
        try await OriginServer.with(port: simulation.saved?.originPort ?? 0) { origin in
            try await WebhookReceiver.with(port: simulation.saved?.receiverPort ?? 0) { receiver in
                try await TestService.with(
                    dataDirectory: simulation.dataDirectory,
                    configure: {
                        $0.clock = clock
                        $0.historyRetention = HistoryRetention(defaultPeriod: 7 * 86_400)
                        $0.historyRemovalPace = YearOfHistory.removalPace
                    }
                ) { api in
                    if simulation.saved == nil {
                        try await Self.setUp(api, origin: origin, receiver: receiver, clock: clock, database: database)
                        try simulation.save(.init(start: clock.now, originPort: origin.port, receiverPort: receiver.port))
                    } else {
                        try await YearOfHistory.discardCopies(database, since: clock.now)
                    }
                    var templates = try await YearOfHistory.templates(database)
                    #expect(templates.count == 1 + YearOfHistory.feeds.count)

                    // act: day after day, the day's history, then the clock to the day's end
                    for day in (simulation.daysDone + 1)..<(days + 1) where !simulation.isAskedToStop {
                        let began = ContinuousClock.now
                        let start = clock.now
                        for index in templates.indices {
                            let count = index == 0 ? YearOfHistory.downloadsPerDay : YearOfHistory.runsPerSchedulePerDay
                            try await templates[index].write(count: count, start: start, span: 86_400, day: day)
                        }
                        for feed in YearOfHistory.feeds { origin.change(feed.name) }
                        let copied = ContinuousClock.now
                        clock.advance(by: 86_400)
                        try await clock.settle(timeout: .seconds(600))
                        try await YearOfHistory.waitForRuns(database, through: clock.now)
                        try await clock.settle(timeout: .seconds(600))
                        try await YearOfHistory.vacuumAsAutovacuumWould(database)
                        let size = try await YearOfHistory.size(database)
                        let counts = try await database.rows(
                            "SELECT (SELECT COUNT(*) FROM tasks), (SELECT COUNT(*) FROM events), (SELECT COUNT(*) FROM deliveries)"
                        )[0]
                        let (copying, passing) = ((copied - began) / .seconds(1), (ContinuousClock.now - copied) / .seconds(1))
                        try simulation.record(
                            day: day,
                            "\(size)\t\(counts[0])\t\(counts[1])\t\(counts[2])\t\(String(format: "%.1f\t%.1f", copying, passing))"
                        )
                    }
                    #expect(try await api.send(.GET, "/v1/sessions/downloads").status == 200)
                }
            }
        }

        // verify: the size after a year, as after a week of history
        let sizes = try simulation.sizes()
        if sizes.count >= 365 {
            #expect(Double(sizes[364]) <= 1.2 * Double(sizes[7]), "day 365: \(sizes[364]) bytes; day 8: \(sizes[7])")
        }
    }

    /// The sessions, a real download acknowledged by the webhook, each schedule's first run (new data), and a run a
    /// day later with the feeds unchanged (a `304`), by when the download's content is gone: the templates.
    private static func setUp(
        _ api: APIClient,
        origin: OriginServer,
        receiver: WebhookReceiver,
        clock: ManualClock,
        database: TestDatabase
    ) async throws {
        try await api.createSession(
            "downloads",
            configuration: #"{"retentionPeriod": 86400, "webhook": {"url": "\#(receiver.url)"}}"#
        )
        _ = try await api.createTask("downloads", url: origin.url("/files/65536"))
        _ = try await api.waitForCompletion("downloads", 1)
        try await api.waitUntilAllAcknowledged("downloads")
        for feed in YearOfHistory.feeds {
            if feed.name.hasSuffix("-0") { try await api.createSession(feed.session) }
            let schedule = try await api.send(
                .POST,
                "/v1/sessions/\(feed.session)/fetches",
                json: #"{"url": "\#(origin.url("/feed/\(feed.name)"))", "interval": 60, "keepVersions": 3}"#
            )
            #expect(schedule.status == 201, "\(schedule.text)")
        }
        try await YearOfHistory.waitForRuns(database, through: clock.now)
        clock.advance(by: 86_401)
        try await clock.settle()
        try await YearOfHistory.waitForRuns(database, through: clock.now)
        try await waitUntil {
            try await database.rows("SELECT COUNT(*) FROM tasks WHERE file IS NOT NULL AND fetch_id IS NULL")[0][0] == 0
        }
    }
}

/// The load of ``YearOfHistoryTests`` and what it reads of the database.
enum YearOfHistory {
    /// The days to simulate (`TRANSFERD_YEAR_DAYS`); nil: the benchmark is skipped.
    static let days = ProcessInfo.processInfo.environment["TRANSFERD_YEAR_DAYS"].flatMap { Int($0) }
    /// Where the simulation keeps its state, to go on from the last day it reached (`TRANSFERD_YEAR_DIRECTORY`); by
    /// default a temporary directory of its own.
    static let directory =
        ProcessInfo.processInfo.environment["TRANSFERD_YEAR_DIRECTORY"].flatMap { $0.isEmpty ? nil : $0 }
        ?? DataDirectories.temporary()
    static let downloadsPerDay = 10_000
    static let feedSessions = 10
    static let schedulesPerSession = 10
    static let runsPerSchedulePerDay = 1_440
    /// Each schedule's session and feed.
    static let feeds = (0..<feedSessions).flatMap { session in
        (0..<schedulesPerSession).map { (session: "feeds-\(session)", name: "feed-\(session)-\($0)") }
    }
    /// The history removal at full speed, in transactions of 5,000 rows: a day's removal beside the API would take
    /// minutes of the 86,400 seconds it has (the gentle pace: batches of 100, resting as long as each took), which a
    /// simulation of a year cannot wait for. The rows that stay are the same.
    static let removalPace = RemovalPace(batch: 5_000, restPerWork: 0)

    /// Removes the copies of a day that a stopped run began and did not finish (all that was written since `now`, the
    /// end of the last day simulated), and sets its sessions' counters back to what is left, so that the day is
    /// simulated once.
    static func discardCopies(_ database: TestDatabase, since now: Date) async throws {
        let text = FinishedTaskCopies.storedSecond(now)
        try await database.execute(
            "DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE created_at >= '\(text)')"
        )
        for table in ["deliveries", "events", "tasks"] {
            try await database.execute("DELETE FROM \(table) WHERE created_at >= '\(text)'")
        }
        try await database.execute(
            """
            UPDATE sessions SET
                last_sequence = COALESCE((SELECT MAX(sequence) FROM events e WHERE e.session_id = sessions.id), last_sequence),
                last_task_identifier = COALESCE(
                    (SELECT MAX(task_identifier) FROM tasks t WHERE t.session_id = sessions.id), last_task_identifier)
            """
        )
        if SuiteDatabase.url(forDataDirectory: database.dataDirectory) != nil {
            try await database.execute(
                "DELETE FROM event_commits c WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.transaction_id = c.transaction_id)"
            )
        }
    }

    /// Waits until every schedule has run what was due by `now`: none is under way or due, and every run is judged.
    static func waitForRuns(_ database: TestDatabase, through now: Date) async throws {
        let text = FinishedTaskCopies.storedSecond(now)
        try await waitUntil(timeout: .seconds(600)) {
            try await database.rows(
                """
                SELECT (SELECT COUNT(*) FROM fetch_schedules WHERE running_task IS NOT NULL OR next_run_at <= '\(text)')
                    + (SELECT COUNT(*) FROM tasks WHERE fetch_id IS NOT NULL AND fetch_result IS NULL AND state = 'completed')
                """
            )[0][0] == 0
        }
    }

    /// The download, then each schedule's last `304` run (the last copy, once there are copies): the templates of a
    /// day's history, in that order.
    static func templates(_ database: TestDatabase) async throws -> [FinishedTaskCopies] {
        let download = try await database.rows(
            "SELECT session_id, MAX(task_identifier) FROM tasks WHERE fetch_id IS NULL GROUP BY session_id"
        )
        let runs = try await database.rows(
            "SELECT session_id, MAX(task_identifier) FROM tasks WHERE fetch_result = 'noData' GROUP BY fetch_id, session_id ORDER BY 1, 2"
        )
        var templates: [FinishedTaskCopies] = []
        for row in download + runs {
            templates.append(try await FinishedTaskCopies(database: database, sessionID: row[0], taskIdentifier: row[1]))
        }
        return templates
    }

    /// The database's size in bytes: SQLite's file (its log checkpointed), or the PostgreSQL schema's tables with their
    /// indexes and TOAST.
    static func size(_ database: TestDatabase) async throws -> Int64 {
        guard SuiteDatabase.url(forDataDirectory: database.dataDirectory) != nil else {
            try await database.queue.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
            let file = database.dataDirectory + "/transferd.sqlite"
            return try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int64 ?? 0
        }
        return try await database.rows(
            """
            SELECT CAST(SUM(pg_total_relation_size(c.oid)) AS BIGINT) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind = 'r'
            """
        )[0][0]
    }

    /// On PostgreSQL, vacuums each table whose dead rows pass autovacuum's threshold (the table's own setting, or the
    /// server's), as autovacuum would have in a day.
    static func vacuumAsAutovacuumWould(_ database: TestDatabase) async throws {
        guard SuiteDatabase.url(forDataDirectory: database.dataDirectory) != nil else { return }
        // The statistics of the day's last transactions reach the shared counters within a second.
        try await Task.sleep(for: .seconds(1))
        let due = try await database.texts(
            """
            SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
            WHERE s.schemaname = current_schema()
              AND s.n_dead_tup > \(setting("autovacuum_vacuum_threshold"))
                  + \(setting("autovacuum_vacuum_scale_factor")) * GREATEST(c.reltuples, 0)
            """
        )
        for table in due { try await database.execute("VACUUM \(table)") }
    }

    /// An autovacuum setting as SQL: the table's (`c.reloptions`), or else the server's.
    private static func setting(_ name: String) -> String {
        """
        CAST(COALESCE(
            (SELECT option_value FROM pg_options_to_table(c.reloptions) WHERE option_name = '\(name)'),
            current_setting('\(name)')) AS REAL)
        """
    }
}
