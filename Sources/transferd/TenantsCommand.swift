import ArgumentParser
import Foundation
import TransferdDomain
import TransferdServices

/// `transferd tenants`: list tenants with their quotas and usage, and set a tenant's quotas. Running instances apply a
/// change within 5 seconds (at once to the API's checks).
struct TenantsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenants",
        abstract: "List tenants with their quotas and usage; set a tenant's quotas.",
        subcommands: [List.self, SetQuota.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Each tenant: what it holds, against the quota set for it.")

        @OptionGroup var database: DatabaseLocation

        func run() async throws {
            let standings = try await database.withStore { store in
                try await TenantService(store: store, defaults: TenantQuota()).standings()
            }
            print("tenant\tsessions\tqueued tasks\tstored bytes\ttransfers")
            for standing in standings { print(TenantsCommand.line(standing)) }
        }
    }

    struct SetQuota: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set a tenant's quotas (`default`: the service's own)."
        )

        @OptionGroup var database: DatabaseLocation
        @Argument(help: "The tenant's name.") var name: String
        @OptionGroup var quota: QuotaOptions

        func validate() throws {
            guard !quota.isEmpty else {
                throw ValidationError("Give at least one of --sessions, --queued-tasks, --stored-bytes, --transfers.")
            }
        }

        func run() async throws {
            let quota = quota
            let standing = try await database.withStore { store in
                try await TenantService(store: store, defaults: TenantQuota()).changeQuota(name: name) { quota.apply(to: &$0) }
            }
            guard let standing else { throw ValidationError("No tenant is named \(name); `transferd keys create --tenant` creates one.") }
            print(TenantsCommand.line(standing))
        }
    }

    /// A tenant's line: each quota as `used/limit`, `default` where the service's figure applies.
    static func line(_ standing: TenantStanding) -> String {
        func figure<Number>(_ used: Number?, _ limit: Number?) -> String {
            (used.map { "\($0)/" } ?? "") + (limit.map { "\($0)" } ?? "default")
        }
        let (quota, usage) = (standing.quota, standing.usage)
        return [
            standing.name, figure(usage.sessions, quota.sessions), figure(usage.queuedTasks, quota.queuedTasks),
            figure(usage.storedBytes, quota.storedBytes), figure(nil as Int?, quota.transfers),
        ].joined(separator: "\t")
    }
}
