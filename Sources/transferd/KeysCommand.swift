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

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a key and print it once.",
            discussion: "Quota options set the quotas of the key's tenant, which all its keys share (as `transferd tenants set`)."
        )

        @OptionGroup var directory: DatabaseLocation
        @Option(help: "What the key is for.") var name: String
        @Option(help: "The tenant the key acts for; created when new.") var tenant: String = "default"
        @Flag(help: "The key may list across tenants.") var admin = false
        @OptionGroup var quota: QuotaOptions

        func run() async throws {
            let (quota, tenant) = (quota, tenant)
            let key = try await directory.withStore { store in
                let key = try await APIKeyService(store: store, clock: SystemClock()).create(name: name, tenant: tenant, admin: admin)
                if !quota.isEmpty {
                    _ = try await TenantService(store: store, defaults: TenantQuota()).changeQuota(name: tenant) { quota.apply(to: &$0) }
                }
                return key
            }
            print(key)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (never their secrets).")

        @OptionGroup var directory: DatabaseLocation

        func run() async throws {
            for key in try await directory.withStore({ try await APIKeyService(store: $0, clock: SystemClock()).list() }) {
                let state = key.revokedAt.map { "revoked \($0.formatted(.iso8601))" } ?? "active"
                print("\(key.id)\t\(key.tenant)\t\(key.admin ? "admin" : "-")\t\(state)\t\(key.name)")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key at once.")

        @OptionGroup var directory: DatabaseLocation
        @Argument(help: "The key's id (the part after trd_).") var id: String

        func run() async throws {
            guard try await directory.withStore({ try await APIKeyService(store: $0, clock: SystemClock()).revoke(id: id) }) else {
                throw ValidationError("No active key has the id \(id).")
            }
            print("Revoked \(id).")
        }
    }
}
