import ArgumentParser
import TransferdStorage

/// `transferd restore --from FILE`: makes a backup the database of a data directory that has none.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Make a backup the database of a new data directory.",
        discussion: """
            Put the credentials key the backup's secrets were sealed with in place first (credentials.key in the data \
            directory, or TRANSFERD_CREDENTIALS_KEY). Contents and staged files are not in the backup.
            """
    )

    @OptionGroup var directory: DatabaseLocation

    @Option(help: "The backup to restore.")
    var from: String

    func run() throws {
        try directory.requireSQLite()
        try SQLiteBackup.restore(from: from, into: directory.dataDir)
        print("Restored \(from) into \(directory.dataDir).")
    }
}
