import Foundation
import GRDB
import TransferdDomain
import TransferdMigrations

/// transferd's store on SQLite: a GRDB pool in WAL mode, migrated from `Migrations/*.sql` when opened. Writers are
/// serialised by SQLite; readers see consistent snapshots beside them.
package final class SQLiteStore: Store {
    private let pool: DatabasePool
    private let readers: ReadConnections
    /// The writer's turns: one write transaction at a time, each on the pool's one writer connection.
    private let writer = Turnstile(capacity: 1)
    private let writerThread = WriterExecutor()
    private let signals: SignalBus
    private let vault: CredentialVault
    let checkpointer: WALCheckpointer

    /// Opens (creating if needed) the database at `path` and applies every pending migration; what may hold
    /// credentials is sealed by `vault`, which must be the one that sealed the database. Reads take one of
    /// `readConnections` connections of the store's own, opened at once, or of up to `readConnectionLimit` opened as
    /// reads need them. The log is checkpointed beside the writer once it holds `checkpointPages` pages. What commits
    /// announce goes to `signals`.
    package init(
        path: String,
        vault: CredentialVault,
        readConnections: Int = 2 * ProcessInfo.processInfo.activeProcessorCount + 2,
        readConnectionLimit: Int = 64,
        checkpointPages: Int32 = 1000,
        signals: SignalBus = SignalBus()
    ) async throws {
        self.signals = signals
        self.vault = vault
        let configuration = Self.configuration
        pool = try DatabasePool(path: path, configuration: configuration)
        _ = try await Self.migrate(pool, vault)
        readers = try ReadConnections(path: path, count: readConnections, limit: readConnectionLimit, configuration: configuration)
        let checkpointer = try WALCheckpointer(path: path, configuration: configuration, threshold: checkpointPages)
        try await pool.writeWithoutTransaction { db in
            // Each commit reaches the disk before it is acknowledged. GRDB's WAL mode syncs only at checkpoints
            // (`NORMAL`): a power cut could take back a task the API had answered 201 for, or a completion whose
            // webhook was delivered, which would then run and be delivered again under the same sequence number.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            checkpointer.install(on: db)
        }
        self.checkpointer = checkpointer
    }

    /// The store of a data directory (`transferd.sqlite` in it), creating the directory when needed.
    package convenience init(dataDirectory: String, vault: CredentialVault, signals: SignalBus = SignalBus()) async throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        try await self.init(path: Self.path(dataDirectory: dataDirectory), vault: vault, signals: signals)
    }

    /// Foreign keys on; a busy database waited for; and transactions begun and ended by the store's own statements,
    /// each statement one access to GRDB's connection (`SQLiteConnection`), so that a transaction outlives an access.
    private static var configuration: GRDB.Configuration {
        var configuration = GRDB.Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        configuration.allowsUnsafeTransactions = true
        return configuration
    }

    /// Reads on the calling thread. A read of SQLite in WAL mode never waits for a writer and is CPU work of
    /// microseconds, cheaper than the two thread hops of GRDB's asynchronous read (measured: 1.4× the requests a
    /// second on `GET …/tasks/{n}`). Writes wait their turn for the one writer, and run on a thread of their own.
    package func read<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        try await readers.read { db in try await body(SQLRepositories(db: db, vault: vault)) }
    }

    /// A read of one statement without a transaction, which is a snapshot of its own (`BEGIN` and `COMMIT` are two
    /// more suspensions of the read); one that sends a second statement runs again as a read.
    package func lookup<T: Sendable>(
        counted kind: StoreStatistics.Transaction,
        _ body: @escaping @Sendable (any Repositories) async throws -> T
    ) async throws -> T {
        let budget = StatementBudget()
        do {
            let result = try await readers.lookup(budget: budget) { db in try await body(SQLRepositories(db: db, vault: vault)) }
            if !budget.isExceeded { return result }
        } catch  where budget.isExceeded {}
        return try await read(body)
    }

    package func write<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        let traceparent = Trace.parent
        return try await withTaskExecutorPreference(writerThread) {
            try await writer.run { [pool, vault, signals] in
                let db = SQLiteConnection { work in try pool.writeWithoutTransaction(work) }
                return try await SQLTransaction(db: db, vault: vault, traceparent: traceparent).run(
                    begin: ["BEGIN IMMEDIATE TRANSACTION"],
                    signalling: signals,
                    body
                )
            }
        }
    }

    /// One instance owns a SQLite database, and its writes take turns: a claim is a write.
    package func claim<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        try await write(body)
    }

    package func renew<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        try await write(body)
    }

    package func alone<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T? {
        nil
    }

    package var statistics: StoreStatistics? { nil }

    package func isReachable() async -> Bool {
        (try? await read { _ in 1 }) == 1
    }

    /// One GRDB migration per SQL file, in file-name order, up to the one `isLast` names (all without it);
    /// applied migrations are recorded by name.
    package static func migrator(upTo isLast: (String) -> Bool = { _ in false }) throws -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in try SQLMigrations.sqlite() {
            migrator.registerMigration(migration.name) { db in try db.execute(sql: migration.sql) }
            if isLast(migration.name) { break }
        }
        return migrator
    }

    /// Applies pending migrations to the database in `dataDirectory` (creating both if needed); returns their names.
    package static func migrate(dataDirectory: String, vault: CredentialVault) async throws -> [String] {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        return try await migrate(try DatabasePool(path: path(dataDirectory: dataDirectory), configuration: configuration), vault)
    }

    /// Applies pending migrations to `pool`; returns their names. The part of the sealed-secrets migration written in
    /// Swift runs in a transaction of its own once its SQL is applied, when the database holds no proof that it has
    /// (a crash between the two leaves none). Once secrets an earlier version kept in plain text are sealed, the file
    /// is rewritten (`VACUUM`) and its log emptied, so that no page keeps a copy of them; so is a file without
    /// incremental auto-vacuum, once. Then `vault` must open what the database holds sealed.
    private static func migrate(_ pool: DatabasePool, _ vault: CredentialVault) async throws -> [String] {
        let migrator = try migrator()
        let before = try await pool.read { db in try migrator.appliedIdentifiers(db) }
        let db = SQLiteConnection { work in try pool.writeWithoutTransaction(work) }
        // Up to the sealed-secrets migration first, by a migrator that knows no later one: another instance opening
        // the same file may have applied those since.
        try Self.migrator(upTo: SealedSecretsMigration.follows).migrate(pool)
        let sealed = try await SQLTransaction(db: db, vault: vault).run(begin: ["BEGIN IMMEDIATE TRANSACTION"], signalling: nil) { _ in
            guard try await !SealedSecretsMigration.hasRun(db) else { return false }
            try await SealedSecretsMigration.run(db, vault)
            return true
        }
        try migrator.migrate(pool)
        let applied = try await pool.read { db in try migrator.appliedIdentifiers(db) }.subtracting(before).sorted()
        // Removed history gives its pages back to the file system a few at a time (`HistoryRepository.reclaimSpace`),
        // which needs incremental auto-vacuum; a file made before it is rewritten once to take it.
        let incremental = try await pool.read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") } == 2
        if sealed || !incremental {
            try await pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
                try db.execute(sql: "VACUUM")
                try db.checkpoint(.truncate)
            }
        }
        try await SealedSecretsMigration.verify(db, vault)
        return applied
    }

    /// The names of every migration, in order, and of those applied to this store.
    package func migrations() async throws -> (all: [String], applied: Set<String>) {
        let migrator = try Self.migrator()
        return (migrator.migrations, try await pool.read { db in try migrator.appliedIdentifiers(db) })
    }

    /// SQLite's journal mode (`wal`).
    package func journalMode() async throws -> String? {
        try await pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
    }

    /// How the writer syncs its commits (`PRAGMA synchronous`: 2 is `FULL`, each commit synced).
    package func writerSynchronous() async throws -> Int? {
        try await pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
    }

    package static func path(dataDirectory: String) -> String {
        dataDirectory + "/transferd.sqlite"
    }
}
