import ArgumentParser
import NIOCore
import NIOPosix

/// The `transferd` executable: `serve` (the default) runs the service, `migrate` prepares the database, `keys` and
/// `tenants` manage API keys and quotas, `backup` and `restore` copy a SQLite database.
@main
struct TransferdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transferd",
        abstract: "A self-hosted background transfer service: NSURLSession's background sessions as a REST API.",
        subcommands: [
            ServeCommand.self, MigrateCommand.self, KeysCommand.self, TenantsCommand.self, BackupCommand.self, RestoreCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )

    /// Runs Swift concurrency's tasks on NIO's event loops rather than on a pool of their own, before anything else
    /// runs: a request then stays on the thread that read it instead of hopping to the pool and back to write its
    /// answer, which was a third of an API read's cost. A task stays on the loop that started it, so nothing may
    /// hold a loop for long: files are written and created through NIO's thread pool, SQLite's writes run on a
    /// thread of their own, reads are single indexed statements, and hashing a file takes it a mebibyte at a time.
    static func main() async {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await Self.main(nil)
    }
}
