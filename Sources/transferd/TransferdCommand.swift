import ArgumentParser

/// The `transferd` executable: `serve` (the default) runs the service, `migrate` prepares the database, `keys`
/// manages API keys.
@main
struct TransferdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transferd",
        abstract: "A self-hosted background transfer service: NSURLSession's background sessions as a REST API.",
        subcommands: [ServeCommand.self, MigrateCommand.self, KeysCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
