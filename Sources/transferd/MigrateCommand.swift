import ArgumentParser
import Logging
import TransferdStorage

/// `transferd migrate`: applies pending database migrations and exits.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Apply database migrations and exit.")

    @OptionGroup package var options: ServiceOptions

    func run() async throws {
        let applied: [String]
        let vault = try CredentialsKey.vault(dataDirectory: options.dataDir)
        if options.databaseURL.isEmpty {
            applied = try await SQLiteStore.migrate(dataDirectory: options.dataDir, vault: vault)
        } else {
            let store = try await PostgresStore(url: options.databaseURL, vault: vault, connections: 1, logger: Logger(label: "transferd"))
            applied = store.appliedMigrations
            await store.shutdown()
        }
        print(applied.isEmpty ? "The database is up to date." : "Applied: \(applied.joined(separator: ", ")).")
    }
}
