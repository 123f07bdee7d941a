import Foundation
import GRDB
import TransferdMigrations

/// transferd's SQLite database: a GRDB pool in WAL mode, migrated from `Migrations/*.sql` when opened.
final class AppDatabase: Sendable {
    let pool: DatabasePool

    /// Opens (creating if needed) the database at `path` and applies every pending migration.
    init(path: String) throws {
        var configuration = GRDB.Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator().migrate(pool)
    }

    /// One GRDB migration per SQL file, in file-name order; applied migrations are recorded by name.
    static func migrator() throws -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in try SQLMigrations.all() {
            migrator.registerMigration(migration.name) { db in
                try db.execute(sql: migration.sql)
            }
        }
        return migrator
    }

    /// Whether the database answers a trivial query (readiness).
    func isReachable() async -> Bool {
        (try? await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
    }
}

/// Applies pending migrations to the database in `dataDirectory` (creating both if needed); returns their names.
public func migrateDatabase(dataDirectory: String) throws -> [String] {
    try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
    let pool = try DatabasePool(path: dataDirectory + "/transferd.sqlite")
    let migrator = try AppDatabase.migrator()
    let pending = try pool.read { db in try migrator.appliedIdentifiers(db) }
    try migrator.migrate(pool)
    return try pool.read { db in try migrator.appliedIdentifiers(db) }.subtracting(pending).sorted()
}
