import Foundation
import Logging
import NIOPosix
import PostgresNIO
import TransferdDomain
import TransferdMigrations

/// transferd's store on PostgreSQL, for many instances over one database. A transaction's body is synchronous (as on
/// SQLite), so it runs on a thread of the store's own that waits for each statement; that thread holds one
/// connection for the whole transaction. As on SQLite, an instance writes one transaction at a time (its writer
/// thread), and group commit batches what waits; reads run beside it on the other threads.
///
/// Writes run under READ COMMITTED, never SERIALIZABLE: instances sharing a session would otherwise abort each
/// other over its counters and sequences, which they now take in turn on the session's row (`UPDATE … RETURNING`).
/// A write locks the rows it reads to change (`SQLConnection.rowLock`), so that it never writes back what another
/// transaction changed since; what it merely counts it reads as committed. One that PostgreSQL aborts all the same
/// (a deadlock, a key another transaction inserted since it looked) is run again from the start, which a body that
/// only touches its repositories allows.
///
/// Signals a write announces are sent with `NOTIFY` in its transaction, so that other instances hear of them once
/// it commits; `relaySignals()` listens for theirs.
package final class PostgresStore: Store {
    private let location: PostgresLocation
    private let connections: PostgresConnections
    private let readers: NIOThreadPool
    private let writer: NIOThreadPool
    private let signals: SignalBus
    private let vault: CredentialVault
    private let notifications: PostgresNotifications
    private let logger: Logger
    /// The migrations this store applied when it opened, in order.
    package let appliedMigrations: [String]
    package let statistics: StoreStatistics? = StoreStatistics()

    /// Connects to the database at `url` and applies every pending migration; what may hold credentials is sealed by
    /// `vault`, which must be the one that sealed the database. At most `connections` connections are open: one for
    /// writes, the others for reads (and one more listens). What commits announce goes to `signals`.
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
        self.connections = PostgresConnections(location: location, logger: logger)
        readers = NIOThreadPool(numberOfThreads: max(connections - 1, 1))
        writer = NIOThreadPool(numberOfThreads: 1)
        readers.start()
        writer.start()
        let (pool, readers, writer) = (self.connections, self.readers, self.writer)
        do {
            appliedMigrations = try await writer.runIfActive {
                try Self.migrate(connections: pool, schema: location.schema, vault: vault, logger: logger)
            }
        } catch {
            await Self.close(pool, [readers, writer])
            throw error
        }
    }

    /// Closes the connections and stops the store's threads.
    package func shutdown() async {
        await Self.close(connections, [readers, writer])
    }

    private static func close(_ connections: PostgresConnections, _ threads: [NIOThreadPool]) async {
        for pool in threads { try? await pool.shutdownGracefully() }
        await connections.closeAll()
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any Repositories) throws -> T) async throws -> T {
        try await readers.runIfActive { [self] in
            try transaction(.read, begin: ["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"], body)
        }
    }

    package func write<T: Sendable>(_ body: @escaping @Sendable (any Repositories) throws -> T) async throws -> T {
        try await writing(.write, on: writer, begin: ["BEGIN ISOLATION LEVEL READ COMMITTED"], body)
    }

    /// A renewal runs on a reader's thread and connection, beside the writer's queue; its `UPDATE … WHERE
    /// lease_owner = …` reads the row as committed, so it never renews a lease another instance has taken.
    package func renew<T: Sendable>(_ body: @escaping @Sendable (any Repositories) throws -> T) async throws -> T {
        try await writing(.renew, on: readers, begin: ["BEGIN ISOLATION LEVEL READ COMMITTED"], body)
    }

    /// A claim reads committed rows, not a snapshot, after it has waited for the claim lock of the store's schema
    /// (every instance over the schema takes the same), so that it sees the claims made before it; the lock is
    /// released when it commits.
    package func claim<T: Sendable>(_ body: @escaping @Sendable (any Repositories) throws -> T) async throws -> T {
        try await writing(.claim, on: writer, begin: ["BEGIN ISOLATION LEVEL READ COMMITTED", Self.lock(7302)], body)
    }

    /// Takes the advisory lock `key` of the current schema until the transaction ends: deployments in other schemas
    /// of the database do not wait for it.
    private static func lock(_ key: Int32) -> String {
        "SELECT pg_advisory_xact_lock(\(key), hashtext(current_schema()))"
    }

    private func writing<T: Sendable>(
        _ kind: StoreStatistics.Transaction,
        on threads: NIOThreadPool,
        begin: [String],
        _ body: @escaping @Sendable (any Repositories) throws -> T
    ) async throws -> T {
        var attempt = 0
        let traceparent = Trace.parent
        while true {
            attempt += 1
            do {
                return try await threads.runIfActive { [self] in
                    try transaction(kind, begin: begin, traceparent: traceparent, body)
                }
            } catch let conflict as SerializationConflict where attempt < Self.maximumAttempts {
                statistics?.ranAgain(kind)
                logger.debug(
                    "a write ran again",
                    metadata: ["attempt": "\(attempt)", "sqlState": "\(conflict.error.serverInfo?[.sqlState] ?? "")"]
                )
            }
        }
    }

    package var isShared: Bool { true }

    package func isReachable() async -> Bool {
        (try? await read { _ in 1 }) == 1
    }

    private static let maximumAttempts = 50

    /// Runs `body` in a transaction on a connection of its own, then what it registered for after its commit.
    private func transaction<T>(
        _ kind: StoreStatistics.Transaction,
        begin: [String],
        traceparent: String? = nil,
        _ body: (any Repositories) throws -> T
    ) throws -> T {
        let connection = try connections.acquire()
        defer { connections.release(connection) }
        let statistics = statistics
        let db = PostgresSQLConnection(connection, locksRowsRead: kind == .write, logger: logger) { statistics?.sent(in: kind) }
        let repositories = SQLRepositories(db: db, vault: vault, traceparent: traceparent)
        let result: T
        do {
            for statement in begin { try db.execute(statement, []) }
            result = try body(repositories)
            try repositories.commitActions.prepare()
            let payloads = notifications.payloads(repositories.commitActions.aftermath.signals)
            let channel = notifications.channel
            let notify = { (payload: String) in _ = try db.execute("SELECT pg_notify(?, ?)", [channel, payload]) }
            // The commit's number goes last, with the last notification when there is one: a round trip less.
            if repositories.eventsAppended.value, let last = payloads.last {
                for payload in payloads.dropLast() { try notify(payload) }
                try db.execute(Self.numberCommitNotifying, [channel, last])
            } else {
                for payload in payloads { try notify(payload) }
                if repositories.eventsAppended.value { try db.execute(Self.numberCommit, []) }
            }
            try db.execute("COMMIT", [])
        } catch {
            if case StoreError.unavailable = error { connections.dropIdle() }
            _ = try? db.execute("ROLLBACK", [])
            repositories.commitActions.undo()
            throw error
        }
        repositories.commitActions.aftermath.run(signalling: signals)
        return result
    }

    /// The last statement of a transaction that appended events: it takes the next commit position of the events'
    /// log, and holds the log's head until it has committed, so that positions commit in order and a reader of a
    /// tenant's events (`TenantEventCursor`) sees them in order, without waiting for transactions that wrote none.
    private static let numberCommit = """
        WITH head AS (UPDATE event_log_head SET position = position + 1 RETURNING position)
        INSERT INTO event_commits (position, transaction_id) SELECT position, pg_current_xact_id() FROM head
        """

    /// `numberCommit`, and a notification (`pg_notify(?, ?)`) in the same statement.
    private static let numberCommitNotifying = """
        WITH head AS (UPDATE event_log_head SET position = position + 1 RETURNING position),
        numbered AS (
            INSERT INTO event_commits (position, transaction_id) SELECT position, pg_current_xact_id() FROM head RETURNING position
        )
        SELECT pg_notify(?, ?) FROM numbered
        """

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

    /// Applies the migrations of `Migrations/PostgreSQL/` that this database has not had, in order, each in a
    /// transaction that records it; an advisory lock lets one instance migrate while others starting wait.
    private static func migrate(
        connections: PostgresConnections,
        schema: String?,
        vault: CredentialVault,
        logger: Logger
    ) throws -> [String] {
        var applied: [String] = []
        let connection = try connections.acquire()
        defer { connections.release(connection) }
        let db = PostgresSQLConnection(connection, answerTimeout: nil, logger: logger)
        if let schema { try db.execute("CREATE SCHEMA IF NOT EXISTS \(schema)", []) }
        try db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)", [])
        for migration in try SQLMigrations.postgres() {
            try db.execute("BEGIN", [])
            do {
                try db.execute(Self.lock(7301), [])
                if try db.value("SELECT name FROM schema_migrations WHERE name = ?", [migration.name]) as String? == nil {
                    try db.execute(MigrationScript.statement(migration.sql), [])
                    if SealedSecretsMigration.follows(migration.name) { try SealedSecretsMigration.run(db, vault) }
                    try db.execute(
                        "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                        [migration.name, StoredDate.text(Date())]
                    )
                    applied.append(migration.name)
                }
                try db.execute("COMMIT", [])
            } catch {
                _ = try? db.execute("ROLLBACK", [])
                throw error
            }
        }
        try SealedSecretsMigration.verify(db, vault)
        return applied
    }
}
