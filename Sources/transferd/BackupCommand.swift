import ArgumentParser
import TransferdStorage

/// `transferd backup --to FILE`: a consistent copy of a data directory's SQLite database, made while the service runs
/// (``SQLiteBackup``). PostgreSQL is backed up with its own tools (`pg_dump`, or base backups and WAL archiving).
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database while the service runs.",
        discussion: """
            Keep the credentials key (credentials.key in the data directory, or TRANSFERD_CREDENTIALS_KEY) apart \
            from the backup: the secrets in it are sealed with that key, and restoring needs it.
            """
    )

    @OptionGroup var directory: DatabaseLocation

    @Option(help: "The backup's file; it must not exist.")
    var to: String

    func run() throws {
        try directory.requireSQLite()
        let bytes = try SQLiteBackup.copy(dataDirectory: directory.dataDir, to: to)
        print("Backed up \(bytes) bytes to \(to).")
    }
}
