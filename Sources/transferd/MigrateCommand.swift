import ArgumentParser
import TransferdCore

/// `transferd migrate`: applies pending database migrations and exits.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Apply database migrations and exit.")

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        let applied = try migrateDatabase(dataDirectory: options.dataDir)
        print(applied.isEmpty ? "The database is up to date." : "Applied: \(applied.joined(separator: ", ")).")
    }
}
