import ArgumentParser
import Foundation
import TransferdDomain
import TransferdServices
import TransferdStorage

/// `transferd keys`: issue, list and revoke API keys in the database of a data directory or at `--database-url`
/// (migrating it first when needed).
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage API keys (Authorization: Bearer trd_…).",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    /// The database options the key subcommands share.
    struct DataDirectory: ParsableArguments {
        @Option(help: "Directory of the SQLite database (env TRANSFERD_DATA_DIR).")
        var dataDir: String = ProcessInfo.processInfo.environment["TRANSFERD_DATA_DIR"] ?? "./transferd-data"

        @Option(help: "The PostgreSQL database instead, as for `serve` (env TRANSFERD_DATABASE_URL).")
        var databaseURL: String = ProcessInfo.processInfo.environment["TRANSFERD_DATABASE_URL"] ?? ""

        /// Runs `body` with the keys of the database, then closes it.
        func withKeys<T>(_ body: (APIKeyService) async throws -> T) async throws -> T {
            try await OpenedStore.with(dataDirectory: dataDir, databaseURL: databaseURL.isEmpty ? nil : databaseURL) { store in
                try await body(APIKeyService(store: store, clock: SystemClock()))
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Issue a key and print it once.")

        @OptionGroup var directory: DataDirectory
        @Option(help: "What the key is for.") var name: String
        @Option(help: "The tenant the key acts for; created when new.") var tenant: String = "default"
        @Flag(help: "The key may list across tenants.") var admin = false

        func run() async throws {
            print(try await directory.withKeys { try await $0.create(name: name, tenant: tenant, admin: admin) })
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (never their secrets).")

        @OptionGroup var directory: DataDirectory

        func run() async throws {
            for key in try await directory.withKeys({ try await $0.list() }) {
                let state = key.revokedAt.map { "revoked \($0.formatted(.iso8601))" } ?? "active"
                print("\(key.id)\t\(key.tenant)\t\(key.admin ? "admin" : "-")\t\(state)\t\(key.name)")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key at once.")

        @OptionGroup var directory: DataDirectory
        @Argument(help: "The key's id (the part after trd_).") var id: String

        func run() async throws {
            guard try await directory.withKeys({ try await $0.revoke(id: id) }) else {
                throw ValidationError("No active key has the id \(id).")
            }
            print("Revoked \(id).")
        }
    }
}
