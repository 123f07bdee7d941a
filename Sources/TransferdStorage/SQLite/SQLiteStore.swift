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
    let checkpointer: WALCheckpointer

    /// Opens (creating if needed) the database at `path` and applies every pending migration. Reads take one of
    /// `readConnections` connections of the store's own, else one of the pool's readers. The log is checkpointed
    /// beside the writer once it holds `checkpointPages` pages. What commits announce goes to `signals`.
    package init(
        path: String,
        readConnections: Int = 2 * ProcessInfo.processInfo.activeProcessorCount + 2,
        checkpointPages: Int32 = 1000,
        signals: SignalBus = SignalBus()
    ) throws {
        self.signals = signals
        var configuration = GRDB.Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator().migrate(pool)
        readers = try ReadConnections(path: path, count: readConnections, configuration: configuration)
        let checkpointer = try WALCheckpointer(path: path, configuration: configuration, threshold: checkpointPages)
        pool.writeWithoutTransaction { db in checkpointer.install(on: db) }
        self.checkpointer = checkpointer
    }

    /// The store of a data directory (`transferd.sqlite` in it), creating the directory when needed.
    package convenience init(dataDirectory: String, signals: SignalBus = SignalBus()) throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        try self.init(path: Self.path(dataDirectory: dataDirectory), signals: signals)
    }

    /// Reads on the calling thread. A read of SQLite in WAL mode never waits for a writer and is CPU work of
    /// microseconds, cheaper than the two thread hops of GRDB's asynchronous read (measured: 1.4× the requests a
    /// second on `GET …/tasks/{n}`). It takes one of the store's own read connections, or the pool's readers when
    /// all of those are lent out. Writes stay asynchronous: they wait their turn for the one writer.
    package func read<T: Sendable>(_ body: @escaping @Sendable (any Repositories) throws -> T) async throws -> T {
        try readOnCallingThread(body)
    }

    private func readOnCallingThread<T>(_ body: (any Repositories) throws -> T) throws -> T {
        func read(_ db: Database) throws -> T { try body(SQLRepositories(db: SQLiteConnection(db: db))) }
        return try readers.read(read) ?? pool.read(read)
    }

    package func write<T: Sendable>(_ body: @escaping @Sendable (any Repositories) throws -> T) async throws -> T {
        let traceparent = Trace.parent
        return try await pool.write { db in
            let repositories = SQLRepositories(db: SQLiteConnection(db: db), traceparent: traceparent)
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

    package func isReachable() async -> Bool {
        (try? readOnCallingThread { _ in 1 }) == 1
    }

    /// One GRDB migration per SQL file, in file-name order; applied migrations are recorded by name.
    package static func migrator() throws -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in try SQLMigrations.sqlite() {
            migrator.registerMigration(migration.name) { db in
                try db.execute(sql: migration.sql)
            }
        }
        return migrator
    }

    /// Applies pending migrations to the database in `dataDirectory` (creating both if needed); returns their names.
    package static func migrate(dataDirectory: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: path(dataDirectory: dataDirectory))
        let migrator = try migrator()
        let pending = try pool.read { db in try migrator.appliedIdentifiers(db) }
        try migrator.migrate(pool)
        return try pool.read { db in try migrator.appliedIdentifiers(db) }.subtracting(pending).sorted()
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
