import Foundation
import GRDB
import TransferdDomain
import TransferdMigrations

/// transferd's store on SQLite: a GRDB pool in WAL mode, migrated from `Migrations/*.sql` when opened. Writers are
/// serialised by SQLite; readers see consistent snapshots beside them.
package final class SQLiteStore: Store {
    private let pool: DatabasePool
    private let readers: ReadConnections
    private let signals: SignalBus
    private let vault: CredentialVault
    let checkpointer: WALCheckpointer

    /// Opens (creating if needed) the database at `path` and applies every pending migration; what may hold
    /// credentials is sealed by `vault`, which must be the one that sealed the database. Reads take one of
    /// `readConnections` connections of the store's own, else one of the pool's readers. The log is checkpointed
    /// beside the writer once it holds `checkpointPages` pages. What commits announce goes to `signals`.
    package init(
        path: String,
        vault: CredentialVault,
        readConnections: Int = 2 * ProcessInfo.processInfo.activeProcessorCount + 2,
        checkpointPages: Int32 = 1000,
        signals: SignalBus = SignalBus()
    ) throws {
        self.signals = signals
        self.vault = vault
        var configuration = GRDB.Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        pool = try DatabasePool(path: path, configuration: configuration)
        _ = try Self.migrate(pool, vault)
        readers = try ReadConnections(path: path, count: readConnections, configuration: configuration)
        let checkpointer = try WALCheckpointer(path: path, configuration: configuration, threshold: checkpointPages)
        pool.writeWithoutTransaction { db in checkpointer.install(on: db) }
        self.checkpointer = checkpointer
    }

    /// The store of a data directory (`transferd.sqlite` in it), creating the directory when needed.
    package convenience init(dataDirectory: String, vault: CredentialVault, signals: SignalBus = SignalBus()) throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        try self.init(path: Self.path(dataDirectory: dataDirectory), vault: vault, signals: signals)
    }

    /// Reads on the calling thread. A read of SQLite in WAL mode never waits for a writer and is CPU work of
    /// microseconds, cheaper than the two thread hops of GRDB's asynchronous read (measured: 1.4× the requests a
    /// second on `GET …/tasks/{n}`). It takes one of the store's own read connections, or the pool's readers when
    /// all of those are lent out. Writes stay asynchronous: they wait their turn for the one writer.
    package func read<T: Sendable>(_ body: @escaping @Sendable (any Repositories) throws -> T) async throws -> T {
        try readOnCallingThread(body)
    }

    private func readOnCallingThread<T>(_ body: (any Repositories) throws -> T) throws -> T {
        func read(_ db: Database) throws -> T { try body(SQLRepositories(db: SQLiteConnection(db: db), vault: vault)) }
        return try readers.read(read) ?? pool.read(read)
    }

    package func write<T: Sendable>(_ body: @escaping @Sendable (any Repositories) throws -> T) async throws -> T {
        let traceparent = Trace.parent
        return try await pool.write { db in
            let repositories = SQLRepositories(db: SQLiteConnection(db: db), vault: vault, traceparent: traceparent)
            do {
                let result = try body(repositories)
                try repositories.commitActions.prepare()
                repositories.commitActions.register(in: db, signalling: signals)
                return result
            } catch {
                repositories.commitActions.undo()
                throw error
            }
        }
    }

    /// One instance owns a SQLite database, and its writes take turns: a claim is a write.
    package func claim<T: Sendable>(_ body: @escaping @Sendable (any Repositories) throws -> T) async throws -> T {
        try await write(body)
    }

    package func renew<T: Sendable>(_ body: @escaping @Sendable (any Repositories) throws -> T) async throws -> T {
        try await write(body)
    }

    package var isShared: Bool { false }

    package var statistics: StoreStatistics? { nil }

    package func isReachable() async -> Bool {
        (try? readOnCallingThread { _ in 1 }) == 1
    }

    /// One GRDB migration per SQL file, in file-name order (with the Swift that follows one, under `vault`);
    /// applied migrations are recorded by name.
    package static func migrator(_ vault: CredentialVault) throws -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in try SQLMigrations.sqlite() {
            migrator.registerMigration(migration.name) { db in
                try db.execute(sql: migration.sql)
                if SealedSecretsMigration.follows(migration.name) { try SealedSecretsMigration.run(SQLiteConnection(db: db), vault) }
            }
        }
        return migrator
    }

    /// Applies pending migrations to the database in `dataDirectory` (creating both if needed); returns their names.
    package static func migrate(dataDirectory: String, vault: CredentialVault) throws -> [String] {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        return try migrate(try DatabasePool(path: path(dataDirectory: dataDirectory)), vault)
    }

    /// Applies pending migrations to `pool`; returns their names. Once secrets an earlier version kept in plain text
    /// are sealed, the file is rewritten (`VACUUM`) and its log emptied, so that no page keeps a copy of them. Then
    /// `vault` must open what the database holds sealed.
    private static func migrate(_ pool: DatabasePool, _ vault: CredentialVault) throws -> [String] {
        let migrator = try migrator(vault)
        let before = try pool.read { db in try migrator.appliedIdentifiers(db) }
        try migrator.migrate(pool)
        let applied = try pool.read { db in try migrator.appliedIdentifiers(db) }.subtracting(before).sorted()
        if applied.contains(where: SealedSecretsMigration.follows) {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM")
                try db.checkpoint(.truncate)
            }
        }
        try pool.read { db in try SealedSecretsMigration.verify(SQLiteConnection(db: db), vault) }
        return applied
    }

    /// The names of every migration, in order, and of those applied to this store.
    package func migrations() async throws -> (all: [String], applied: Set<String>) {
        let migrator = try Self.migrator(vault)
        return (migrator.migrations, try await pool.read { db in try migrator.appliedIdentifiers(db) })
    }

    /// SQLite's journal mode (`wal`).
    package func journalMode() async throws -> String? {
        try await pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
    }

    private static func path(dataDirectory: String) -> String {
        dataDirectory + "/transferd.sqlite"
    }
}

extension CommitActions {
    /// Hands what follows the commit to GRDB as one observer: GRDB visits every registered observer before each
    /// statement, so one per action would make a transaction of n statements and n actions (a batch of tasks) cost n².
    func register(in db: Database, signalling bus: SignalBus) {
        let (aftermath, undos) = (aftermath, undos)
        guard !aftermath.isEmpty || !undos.isEmpty else { return }
        db.afterNextTransaction { _ in
            aftermath.run(signalling: bus)
        } onRollback: { _ in
            for undo in undos.reversed() { undo() }
        }
    }
}
