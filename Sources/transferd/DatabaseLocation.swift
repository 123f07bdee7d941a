import ArgumentParser
import Foundation
import TransferdDomain

/// Where the database the management commands (`keys`, `tenants`) work on is: a data directory's SQLite database, or
/// PostgreSQL at `--database-url` (migrated first when needed).
struct DatabaseLocation: ParsableArguments {
    @Option(help: "Directory of the SQLite database (env TRANSFERD_DATA_DIR).")
    var dataDir: String = ProcessInfo.processInfo.environment["TRANSFERD_DATA_DIR"] ?? "./transferd-data"

    @Option(help: "The PostgreSQL database instead, as for `serve` (env TRANSFERD_DATABASE_URL).")
    var databaseURL: String = ProcessInfo.processInfo.environment["TRANSFERD_DATABASE_URL"] ?? ""

    /// Runs `body` with the database's store, then closes it.
    func withStore<T>(_ body: (any Store) async throws -> T) async throws -> T {
        try await OpenedStore.with(dataDirectory: dataDir, databaseURL: databaseURL.isEmpty ? nil : databaseURL, body)
    }

    /// Throws unless the database is a data directory's SQLite database: PostgreSQL is backed up and restored with its
    /// own tools.
    func requireSQLite() throws {
        guard databaseURL.isEmpty else {
            throw ValidationError(
                "PostgreSQL is backed up and restored with its own tools (pg_dump and pg_restore, or base backups with WAL archiving); see docs/deployment.md."
            )
        }
    }
}
