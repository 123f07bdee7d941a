import Foundation
import GRDB
import GRDBSQLite
import Synchronization
import Testing
import TransferdDomain
import TransferdTestSupport

@testable import TransferdStorage

/// What the scheduler, the dispatcher and the API read stays index seeks and counters however deep the queue: none
/// of their statements scans a table or sorts what it found, and their cached statements stay prepared.
@Suite struct QueuePlanTests {
    @Test func theSchedulerFindsItsNextTasksThroughIndexes() async throws {
        // setup: queued tasks of two sessions on two origins, one of them waiting to retry
        let database = try await Self.database()
        let now = Date()
        let db = Self.connection(database)
        do {
            for name in ["first", "second"] {
                let session = try await Self.insertSession(db, name, at: now)
                for (number, origin) in ["a.test:80", "b.test:80", "a.test:80"].enumerated() {
                    var task = try await Self.insertTask(db, session: session.rowID, number: number, origin: origin, at: now)
                    if number == 2 {
                        task.nextAttemptAt = now.addingTimeInterval(60)
                        try await SQLTaskRepository(db: db, vault: .forTests).update(task)
                    }
                }
            }
        }

        // act
        let ((heads, nextDue), plans) = try await Self.planned(database) { db in
            let queue = SQLTaskQueueRepository(db: db, vault: .forTests)
            let (overview, heads) = try await queue.claimable(dueAfter: now, leasesAt: now, owner: "i1", ending: [], depth: 4)
            return (heads, overview.nextAttempt)
        }

        // verify: every queue's due task was found, through seeks only
        #expect(
            heads.map(\.task.originalRequest.url).sorted() == [
                "http://a.test:80/0", "http://a.test:80/0", "http://b.test:80/1", "http://b.test:80/1",
            ]
        )
        #expect(heads.allSatisfy { $0.turn == 1 })
        #expect(nextDue != nil)
        #expect(
            plans.count >= 5,
            "the overview (times, transfers under way, first queue, whether a background task is active), the heads of each queue with their session and the next queue"
        )
        // The transfers under way are counted from the leases (as many as the instances' workers, whatever the depth
        // of the queue), grouped by queue in a temporary B-tree.
        Self.expectSeeksOnly(plans, but: ["USE TEMP B-TREE FOR GROUP BY", "SCAN underway"])
    }

    @Test func aSessionsTaskCountsAreCountersKeptWithItsTasks() async throws {
        // setup: three tasks; one completes with a file, one is suspended, one keeps a partial file
        let database = try await Self.database()
        let now = Date()
        let db = Self.connection(database)
        let session = try await { () async throws -> Session in
            let session = try await Self.insertSession(db, "counted", at: now)
            var completed = try await Self.insertTask(db, session: session.rowID, number: 0, origin: "a.test:80", at: now)
            var suspended = try await Self.insertTask(db, session: session.rowID, number: 1, origin: "a.test:80", at: now)
            var partial = try await Self.insertTask(db, session: session.rowID, number: 2, origin: "a.test:80", at: now)
            completed.state = .completed
            completed.transfer.updateDownload { $0.file = StoredFile(size: 1000, sha256: "") }
            suspended.state = .suspended
            partial.transfer.updateDownload { $0.partialBytes = 300 }
            for task in [completed, suspended, partial] {
                try await SQLTaskRepository(db: db, vault: .forTests).update(task)
            }
            return session
        }()

        // act
        let (counts, plans) = try await Self.planned(database) { db in
            let queue = SQLTaskQueueRepository(db: db, vault: .forTests)
            return await (
                try SQLSessionRepository(db: db, vault: .forTests).details(sessionIDs: [session.rowID])[
                    session.rowID
                ],
                try SQLSessionRepository(db: db, vault: .forTests).takeTaskIdentifiers(1, sessionID: session.rowID)?
                    .tasks,
                try queue.workload(sessionID: session.rowID),
                try SQLTenantRepository(db: db, vault: .forTests).standing(id: 1)?.usage
            )
        }

        // verify
        let (details, count, workload, usage) = counts
        #expect(details?.taskCounts == [.suspended: 1, .running: 1, .canceling: 0, .completed: 1])
        #expect(details?.storedBytes == 1300)
        #expect(count == 3 && workload?.busy == 1 && workload?.unfinished == 2)
        #expect(usage == TenantUsage(sessions: 1, queuedTasks: 2, storedBytes: 1300))
        Self.expectSeeksOnly(plans)
    }

    @Test func theDispatcherFindsEachSessionsNextDeliveryThroughAnIndex() async throws {
        // setup: two subscribed sessions with three progress deliveries of one task each (the middle one superseded
        // when the third was written), the first session's head delivered
        let database = try await Self.database()
        let now = Date()
        let db = Self.connection(database)
        var sessions: [Int64] = []
        for name in ["first", "second"] {
            let session = try await Self.insertSubscribedSession(db, name, at: now)
            for _ in 0..<3 { try await Self.appendProgress(db, session: session, at: now) }
            sessions.append(session)
        }
        try await database.write { [sessions] db in
            try db.execute(
                sql: "UPDATE deliveries SET status = 'delivered' WHERE sequence = 1 AND session_id = ?",
                arguments: [sessions[0]]
            )
        }

        // act: another progress of the second session's task is written; the heads are found
        let ((heads, head), plans) = try await Self.planned(database) { db in
            try await Self.appendProgress(db, session: sessions[1], at: now)
            let deliveries = SQLDeliveryRepository(db: db, vault: .forTests)
            return await (
                try deliveries.pendingHeads(exceptSessions: [], leasableBy: "i1", at: now),
                try deliveries.pendingHead(sessionID: sessions[1])
            )
        }

        // verify: each session's lowest pending sequence; the second session's head (it may be in flight) was not
        // coalesced, every progress between it and the newest was; through seeks only
        #expect(heads.map(\.delivery.sequence).sorted() == [1, 3])
        #expect(head?.sequence == 1)
        let statuses = try await SQLDeliveryRepository(db: db, vault: .forTests).list(
            sessionID: sessions[1],
            after: 0,
            status: nil,
            limit: 10
        ).map(
            \.0.status
        )
        #expect(statuses == [.pending, .coalesced, .coalesced, .pending])
        Self.expectSeeksOnly(plans)
        #expect(plans.contains { $0.0.hasPrefix("UPDATE deliveries") && $0.1.contains { $0.contains("deliveries_pending_progress") } })
    }

    @Test func theDispatchersStatementsArePreparedOnceWhateverTheirValues() async throws {
        // setup: two subscribed sessions with progress pending
        let database = try await Self.database()
        let now = Date()
        let db = Self.connection(database)
        let sessions = [
            try await Self.insertSubscribedSession(db, "first", at: now), try await Self.insertSubscribedSession(db, "second", at: now),
        ]

        // act: the outbox written, read and answered with different values bound each time (a failed attempt, then
        // a delivered one)
        do {
            for round in 0..<3 {
                for session in sessions {
                    try await Self.appendProgress(db, session: session, at: now.addingTimeInterval(Double(round)))
                    let deliveries = SQLDeliveryRepository(db: db, vault: .forTests)
                    guard let head = try await deliveries.pendingHead(sessionID: session) else { continue }
                    let answer = DeliveryAnswer.answered(status: round.isMultiple(of: 2) ? 500 : 204, retryAfter: nil)
                    let answered = AnsweredDelivery(
                        head,
                        answer: answer,
                        attemptedAt: now,
                        latency: .milliseconds(1),
                        now: now,
                        policy: DeliveryPolicy()
                    )
                    let outcomes = try await deliveries.record([answered], releasing: [], leasedTo: "i1", dueBy: now)
                    #expect(outcomes.map(\.recorded) == [true])
                }
                _ = try await SQLDeliveryRepository(db: db, vault: .forTests).pendingHeads(exceptSessions: [], leasableBy: "i1", at: now)
            }
        }
        let reprepared = database.inDatabase { db in Self.repreparations(db) }

        // verify: SQLite never prepared a cached statement again (as it does when a bound value decides whether a
        // partial index applies)
        #expect(reprepared == 0)
    }

    /// How many times SQLite prepared the connection's live statements again since they were first prepared.
    private static func repreparations(_ db: Database) -> Int32 {
        var total: Int32 = 0
        var statement = sqlite3_next_stmt(db.sqliteConnection, nil)
        while let current = statement {
            total += sqlite3_stmt_status(current, SQLITE_STMTSTATUS_REPREPARE, 0)
            statement = sqlite3_next_stmt(db.sqliteConnection, current)
        }
        return total
    }

    /// A session with a webhook subscriber; returns its row id.
    private static func insertSubscribedSession(_ db: any SQLConnection, _ identifier: String, at now: Date) async throws -> Int64 {
        let session = try await insertSession(db, identifier, at: now)
        let webhook = WebhookSubscription(
            sessionId: session.rowID,
            url: "http://hook.test/",
            secret: .generate(),
            state: .healthy,
            createdAt: now
        )
        try await SQLWebhookRepository(db: db, vault: .forTests).save(webhook)
        return session.rowID
    }

    private static func appendProgress(_ db: any SQLConnection, session: Int64, at now: Date) async throws {
        let event = Event(
            sessionId: session,
            sequence: 0,
            taskIdentifier: 1,
            payload: .taskProgress(DownloadProgress(bytesWritten: 1, totalBytesWritten: 1, totalBytesExpectedToWrite: -1)),
            createdAt: now,
            traceparent: nil
        )
        _ = try await SQLEventRepository(db: db, vault: .forTests).append([event])
    }

    /// A migrated database of its own.
    private static func database() async throws -> DatabaseQueue {
        let directory = DataDirectories.temporary()
        _ = try await SQLiteStore(dataDirectory: directory, vault: .forTests)
        return try DatabaseQueue(path: directory + "/transferd.sqlite")
    }

    /// The repositories' connection to `database`: each statement one access, outside a transaction.
    private static func connection(_ database: DatabaseQueue) -> any SQLConnection {
        SQLiteConnection { work in try database.inDatabase(work) }
    }

    private static func insertSession(_ db: any SQLConnection, _ identifier: String, at now: Date) async throws -> Session {
        try await SQLSessionRepository(db: db, vault: .forTests).insert(
            Session(identifier: identifier, tenantId: 1, configuration: .default, createdAt: now)
        )
    }

    private static func insertTask(
        _ db: any SQLConnection,
        session: Int64,
        number: Int,
        origin: String,
        at now: Date
    ) async throws
        -> TransferTask
    {
        let request = TransferRequest(url: "http://\(origin)/\(number)", method: "GET", headers: [:])
        let new = NewTask(transfer: .download(DownloadTransfer()), request: request, origin: origin, priority: 0.5, start: true)
        return try await SQLTaskRepository(db: db, vault: .forTests).insert(
            TransferTask(new, sessionID: session, taskIdentifier: Int64(number + 1), createdAt: now)
        )
    }

    /// Runs `body` in a transaction, and returns its result with the query plan of every statement it ran.
    private static func planned<T>(
        _ database: DatabaseQueue,
        _ body: (any SQLConnection) async throws -> T
    ) async throws -> (
        T, [(String, [String])]
    ) {
        let statements = Statements()
        database.inDatabase { db in db.trace { statements.texts.withLock { [text = "\($0)"] in $0.append(text) } } }
        let result = try await body(connection(database))
        return try database.inDatabase { db in
            db.trace(options: .statement, nil)
            let plans = try statements.texts.withLock { $0 }.map { sql in
                // Plans are made before arguments are bound: each parameter is given a NULL.
                let nulls = StatementArguments(Array(repeating: DatabaseValue.null, count: sql.count { $0 == "?" }))
                return (sql, try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: nulls).map { $0["detail"] as String })
            }
            return (result, plans)
        }
    }

    /// The statements a traced connection ran.
    private final class Statements: Sendable {
        let texts = Mutex<[String]>([])
    }

    /// A SCAN reads a whole table (a scan of `json_each` reads the argument list of ids); a temporary B-tree sorts
    /// every match before the first is returned. The steps `but` names are known to be bounded otherwise.
    private static func expectSeeksOnly(_ plans: [(String, [String])], but bounded: Set<String> = []) {
        for (sql, fullPlan) in plans {
            let plan = fullPlan.filter { !bounded.contains($0) }
            let scansTable = plan.contains { $0.hasPrefix("SCAN") && !$0.hasPrefix("SCAN json_each") && $0 != "SCAN CONSTANT ROW" }
            #expect(!scansTable && !plan.contains { $0.contains("TEMP B-TREE") }, "\(sql): \(plan)")
        }
    }
}
