import Foundation
import Logging
import NIOPosix
import PostgresNIO
import ServiceLifecycle
import Synchronization
import TransferdDomain
import TransferdMigrations

/// transferd's store on PostgreSQL, for many instances over one database. Its connections are postgres-nio's pool
/// (`PostgresClient`), run as a ServiceLifecycle service from the moment the store opens until it shuts down; a
/// transaction leases one connection for its whole length and awaits each statement on it. As on SQLite, an
/// instance writes one transaction at a time (its writer's turns), and group commit batches what waits; claims take
/// turns of their own beside it (every instance's claims wait for one lock anyway, and a claim waiting behind a
/// write left workers idle), and reads and lease renewals run beside both on connections of their own.
///
/// Writes run under READ COMMITTED, never SERIALIZABLE: instances sharing a session would otherwise abort each
/// other over its counters and sequences, which they now take in turn on the session's row (`UPDATE … RETURNING`).
/// A write locks the rows it reads to change (`SQLConnection.rowLock`), so that it never writes back what another
/// transaction changed since; what it merely counts it reads as committed. One that PostgreSQL aborts all the same
/// (a deadlock, a key another transaction inserted since it looked) is run again from the start, which a body that
/// only touches its repositories allows.
///
/// Signals a write announces are sent with `NOTIFY` in its transaction, so that other instances hear of them once
/// it commits; `relaySignals()` listens for theirs on a connection of its own.
package final class PostgresStore: Store {
    private let location: PostgresLocation
    private let client: PostgresClient
    /// Runs the pool until the store shuts down.
    private let pool: ServiceGroup
    private let running: Task<Void, Never>
    /// The writer's turns: one write at a time.
    private let writer = Turnstile(capacity: 1)
    /// The claims' turns: one claim at a time, beside the writer's.
    private let claimer = Turnstile(capacity: 1)
    private let signals: SignalBus
    private let vault: CredentialVault
    private let notifications: PostgresNotifications
    private let logger: Logger
    /// The migrations this store applied when it opened, in order.
    package let appliedMigrations: [String]
    package let statistics: StoreStatistics? = StoreStatistics()

    /// Connects to the database at `url` and applies every pending migration; what may hold credentials is sealed by
    /// `vault`, which must be the one that sealed the database. At most `connections` connections are open in the
    /// pool, and at least three may be, so that a lease renewal never waits for the writer's or the claim's (one more
    /// listens). What commits announce goes to `signals`.
    package init(
        url: String,
        vault: CredentialVault,
        connections: Int = 16,
        signals: SignalBus = SignalBus(),
        logger: Logger
    ) async throws {
        let location = try PostgresLocation(url: url)
        self.location = location
        self.signals = signals
        self.vault = vault
        notifications = PostgresNotifications(schema: location.schema)
        self.logger = logger
        var configuration = location.clientConfiguration
        configuration.options.maximumConnections = max(connections, 3)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        let pool = ServiceGroup(services: [client], gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        self.pool = pool
        // The pool runs before the first lease asks it for a connection.
        let (started, starting) = AsyncStream.makeStream(of: Void.self)
        running = Task {
            starting.finish()
            try? await pool.run()
        }
        for await _ in started {}
        do {
            appliedMigrations = try await Self.leasing(client) { connection in
                try await Self.migrate(connection, schema: location.schema, vault: vault, logger: logger)
            }
        } catch {
            await pool.triggerGracefulShutdown()
            await running.value
            throw error
        }
    }

    /// Closes the pool's connections once the transactions under way have ended.
    package func shutdown() async {
        await pool.triggerGracefulShutdown()
        await running.value
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        try await transaction(.read, begin: ["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"], body)
    }

    package func lookup<T: Sendable>(
        counted kind: StoreStatistics.Transaction,
        _ body: @escaping @Sendable (any Repositories) async throws -> T
    ) async throws -> T {
        let (statistics, logger, vault) = (statistics, logger, vault)
        let budget = StatementBudget()
        do {
            let result = try await Self.leasing(client) { connection in
                let db = PostgresSQLConnection(connection: connection, logger: logger, budget: budget) { statistics?.sent(in: kind) }
                return try await body(SQLRepositories(db: db, vault: vault))
            }
            if !budget.isExceeded { return result }
        } catch  where budget.isExceeded {}
        return try await read(body)
    }

    package func write<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        try await writer.run { try await writing(.write, begin: ["BEGIN ISOLATION LEVEL READ COMMITTED"], body) }
    }

    /// Beside the writer's turns: its statement holds the rows it changes only while it runs. What it announces, it
    /// notifies in the statement itself (``CommitNumbering``).
    package func alone<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T? {
        let (statistics, traceparent, logger, vault, signals) = (statistics, Trace.parent, logger, vault, signals)
        let notifications = notifications
        return try await runningAgain(.write) {
            try await Self.leasing(client) { connection in
                let budget = StatementBudget()
                let db = PostgresSQLConnection(connection: connection, logger: logger, budget: budget) { statistics?.sent(in: .write) }
                let numbering = CommitNumbering(notifications: notifications)
                let repositories = SQLRepositories(db: db, vault: vault, traceparent: traceparent, numbering: numbering)
                let result: T
                do {
                    result = try await body(repositories)
                } catch {
                    repositories.commitActions.undo()
                    if budget.isExceeded { return nil }
                    throw error
                }
                if budget.isExceeded {
                    repositories.commitActions.undo()
                    return nil
                }
                let aftermath = repositories.commitActions.aftermath
                assert(aftermath.signals.isSubset(of: numbering.notified), "a statement alone notifies what it announces")
                aftermath.run(signalling: signals)
                return result
            }
        }
    }

    /// A renewal runs beside the writer's turns; its `UPDATE … WHERE lease_owner = …` reads the row as committed, so
    /// it never renews a lease another instance has taken.
    package func renew<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        try await writing(.renew, begin: ["BEGIN ISOLATION LEVEL READ COMMITTED"], body)
    }

    /// A claim reads committed rows, once it holds the claim lock of the store's schema (every instance over the
    /// schema takes the same), so that it sees the claims made before it. It runs without a transaction
    /// (``ClaimTurn``): its first read of the queue takes the lock, its lease, its one write, commits and then lets go
    /// of it, and one that leases nothing lets go of it itself. Whatever fails meanwhile, the connection is closed, and with it the lock, so that no
    /// claim of any instance waits for a lock nobody will let go of.
    package func claim<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        let (statistics, traceparent, logger, vault, signals) = (statistics, Trace.parent, logger, vault, signals)
        return try await claimer.run {
            try await runningAgain(.claim) {
                try await Self.leasing(client) { connection in
                    let turn = ClaimTurn()
                    let db = PostgresSQLConnection(connection: connection, logger: logger, claimTurn: turn) { statistics?.sent(in: .claim) }
                    let repositories = SQLRepositories(db: db, vault: vault, traceparent: traceparent)
                    let result: T
                    do {
                        result = try await body(repositories)
                        if turn.isHeld { try await db.forEachRow(ClaimTurn.give, []) { _ in } }
                    } catch {
                        repositories.commitActions.undo()
                        try? await connection.close()
                        throw error
                    }
                    repositories.commitActions.aftermath.run(signalling: signals)
                    return result
                }
            }
        }
    }

    /// Takes the advisory lock `key` of the current schema until the transaction ends: deployments in other schemas
    /// of the database do not wait for it.
    private static func lock(_ key: Int32) -> String {
        "SELECT pg_advisory_xact_lock(\(key), hashtext(current_schema()))"
    }

    private func writing<T: Sendable>(
        _ kind: StoreStatistics.Transaction,
        begin: [String],
        _ body: @escaping @Sendable (any Repositories) async throws -> T
    ) async throws -> T {
        try await runningAgain(kind) { try await transaction(kind, begin: begin, body) }
    }

    /// Runs `write` until the database no longer aborts it for a conflict with another transaction.
    private func runningAgain<T: Sendable>(_ kind: StoreStatistics.Transaction, _ write: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await write()
            } catch let conflict as SerializationConflict where attempt < Self.maximumAttempts {
                statistics?.ranAgain(kind)
                logger.debug(
                    "a write ran again",
                    metadata: ["attempt": "\(attempt)", "sqlState": "\(conflict.error.serverInfo?[.sqlState] ?? "")"]
                )
            }
        }
    }

    package func isReachable() async -> Bool {
        (try? await read { _ in 1 }) == 1
    }

    private static let maximumAttempts = 50

    /// Runs `body` in a transaction on a connection of the pool's, then what it registered for after its commit.
    private func transaction<T: Sendable>(
        _ kind: StoreStatistics.Transaction,
        begin: [String],
        _ body: @escaping @Sendable (any Repositories) async throws -> T
    ) async throws -> T {
        let (statistics, traceparent, logger, vault, signals) = (statistics, Trace.parent, logger, vault, signals)
        let notifications = notifications
        return try await Self.leasing(client) { connection in
            let db = PostgresSQLConnection(connection: connection, logger: logger, locksRowsRead: kind == .write) {
                statistics?.sent(in: kind)
            }
            return try await SQLTransaction(db: db, vault: vault, traceparent: traceparent, notifications: notifications).run(
                begin: begin,
                signalling: signals,
                finish: { repositories in
                    try await Self.announce(repositories, on: db, notifications)
                },
                body
            )
        }
    }

    /// Sends the transaction's signals that its first append of events did not notify (``CommitNumbering``), and,
    /// when it appended events and has no commit position yet (the append was undone with a savepoint), takes one
    /// (with the last notification, a round trip less).
    private static func announce(
        _ repositories: SQLRepositories,
        on db: PostgresSQLConnection,
        _ notifications: PostgresNotifications
    )
        async throws
    {
        let signals = repositories.commitActions.aftermath.signals.subtracting(repositories.numbering?.notified ?? [])
        let (payloads, channel) = (notifications.payloads(signals), notifications.channel)
        let numbers = repositories.eventsAppended.value && repositories.numbering?.numbered != true
        if numbers, let last = payloads.last {
            for payload in payloads.dropLast() { try await db.forEachRow("SELECT pg_notify(?, ?)", [channel, payload]) { _ in } }
            try await db.forEachRow(Self.numberCommitNotifying, [channel, last]) { _ in }
        } else {
            for payload in payloads { try await db.forEachRow("SELECT pg_notify(?, ?)", [channel, payload]) { _ in } }
            if numbers { try await db.forEachRow(Self.numberCommit, []) { _ in } }
        }
    }

    /// Runs `work` on a connection the pool lends; a pool that has none to lend within `leaseTimeout` (the database
    /// is down or unreachable, and the pool keeps trying to connect) is `StoreError.unavailable`, where the pool
    /// would have the caller wait for as long as the database stays away.
    private static func leasing<T: Sendable>(
        _ client: PostgresClient,
        _ work: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let leased = LeaseMark()
        return try await withThrowingTaskGroup(of: LeaseOutcome<T>.self) { group in
            group.addTask {
                .done(
                    try await client.withConnection { connection in
                        leased.mark()
                        return try await work(connection)
                    }
                )
            }
            group.addTask {
                try? await Task.sleep(for: leaseTimeout)
                if !leased.isMarked && !Task.isCancelled {
                    throw StoreError.unavailable("no connection to the database within \(leaseTimeout)")
                }
                return .timerEnded
            }
            while let outcome = try await group.next() {
                if case .done(let value) = outcome {
                    group.cancelAll()
                    return value
                }
            }
            preconditionFailure("the work's task ended without an answer")
        }
    }

    private static let leaseTimeout = Duration.seconds(5)

    /// The commit position of a transaction whose events' append did not take one (``CommitNumbering``): its last
    /// statement, so that it holds the log's head as briefly as it can.
    private static let numberCommit = "WITH \(CommitNumbering.clauses) SELECT position FROM committed"

    /// `numberCommit`, and a notification (`pg_notify(?, ?)`) in the same statement.
    private static let numberCommitNotifying = "WITH \(CommitNumbering.clauses) SELECT pg_notify(?, ?) FROM committed"

    /// Delivers the signals other instances announce until the calling task is cancelled: listens on a connection
    /// of its own, and connects again a second after losing it. Notifications sent while it was not listening are
    /// lost, so each time it starts listening it delivers the signals that make every loop look again.
    package func relaySignals() async {
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(),
                    configuration: location.configuration,
                    id: 0,
                    logger: logger
                )
                do {
                    try await connection.listen(on: notifications.channel) { received in
                        signals.deliver(PostgresNotifications.lookAgain)
                        for try await notification in received {
                            signals.deliver(notifications.signals(in: notification.payload))
                        }
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                logger.warning("lost the database's notifications; listening again in a second", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Analyzes the store's tables as they outgrow their statistics (``PlannerStatistics``) until the calling task
    /// is cancelled; a refresh that fails is tried again at the next.
    package func refreshPlannerStatistics() async {
        let (client, logger, statistics) = (client, logger, PlannerStatistics())
        while !Task.isCancelled {
            do {
                let analyzed = try await Self.leasing(client) { try await statistics.refresh($0, logger: logger) }
                if !analyzed.isEmpty { logger.debug("analyzed tables that outgrew their statistics", metadata: ["tables": "\(analyzed)"]) }
            } catch {
                logger.debug("could not refresh the planner's statistics", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: statistics.interval)
        }
    }

    /// Applies the migrations of `Migrations/PostgreSQL/` that this database has not had, in order, each in a
    /// transaction that records it; an advisory lock lets one instance migrate while others starting wait.
    private static func migrate(
        _ connection: PostgresConnection,
        schema: String?,
        vault: CredentialVault,
        logger: Logger
    ) async throws -> [String] {
        var applied: [String] = []
        let db = PostgresSQLConnection(connection: connection, logger: logger, answerTimeout: nil, prepares: false)
        if let schema { try await db.execute("CREATE SCHEMA IF NOT EXISTS \(schema)", []) }
        try await db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)", [])
        for migration in try SQLMigrations.postgres() {
            let ran = try await SQLTransaction(db: db, vault: vault).run(begin: ["BEGIN", Self.lock(7301)], signalling: nil) { _ in
                guard try await db.value("SELECT name FROM schema_migrations WHERE name = ?", [migration.name]) as String? == nil else {
                    return false
                }
                try await db.execute(MigrationScript.statement(migration.sql), [])
                if SealedSecretsMigration.follows(migration.name) { try await SealedSecretsMigration.run(db, vault) }
                try await db.execute(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                    [migration.name, StoredDate.text(Date())]
                )
                return true
            }
            if ran { applied.append(migration.name) }
        }
        try await SealedSecretsMigration.verify(db, vault)
        return applied
    }
}

/// Whether a transaction's work has its connection (`PostgresStore.leasing`).
private final class LeaseMark: Sendable {
    private let marked = Atomic(false)

    func mark() { marked.store(true, ordering: .releasing) }
    var isMarked: Bool { marked.load(ordering: .acquiring) }
}

/// How a child task of `PostgresStore.leasing` ended.
private enum LeaseOutcome<T: Sendable>: Sendable {
    case done(T)
    case timerEnded
}
