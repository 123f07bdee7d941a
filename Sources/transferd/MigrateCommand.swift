import ArgumentParser
import TransferdStorage

/// `transferd migrate`: applies pending database migrations and exits.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Apply database migrations and exit.")

    @OptionGroup package var options: ServiceOptions

    func run() async throws {
        let applied = try SQLiteStore.migrate(dataDirectory: options.dataDir)
        print(applied.isEmpty ? "The database is up to date." : "Applied: \(applied.joined(separator: ", ")).")
    }
}
