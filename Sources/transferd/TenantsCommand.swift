import ArgumentParser
import Foundation
import TransferdDomain
import TransferdServices

/// `transferd tenants`: list tenants with their quotas and usage, set a tenant's quotas, and set where its disabled
/// webhook endpoints are told. Running instances apply a quota within 5 seconds (at once to the API's checks), and an
/// operational webhook to the next notice.
struct TenantsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenants",
        abstract: "List tenants with their quotas and usage; set a tenant's quotas or operational webhook.",
        subcommands: [List.self, SetQuota.self, SetOpsWebhook.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Each tenant: what it holds, against the quota set for it.")

        @OptionGroup var database: DatabaseLocation

        func run() async throws {
            let standings = try await database.withStore { store in
                try await TenantService(store: store, defaults: TenantQuota()).standings()
            }
            print("tenant\tsessions\tqueued tasks\tstored bytes\tfetches\ttransfers\tbandwidth")
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
                throw ValidationError(
                    "Give at least one of --sessions, --queued-tasks, --stored-bytes, --fetches, --transfers, --bandwidth."
                )
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

    struct SetOpsWebhook: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ops-webhook",
            abstract: "Set where a tenant's disabled webhook endpoints are told, instead of --ops-webhook; --remove goes back to it."
        )

        @OptionGroup var database: DatabaseLocation
        @Argument(help: "The tenant's name.") var name: String
        @Option(help: "The http or https URL told (POST, signed).") var url: String?
        @Option(help: "The whsec_ secret that signs it.") var secret: String?
        @Flag(help: "Remove the tenant's own operational webhook.") var remove = false

        func validate() throws {
            guard remove == (url == nil), url == nil || secret != nil else {
                throw ValidationError("Give --url and --secret, or --remove.")
            }
            if let url, URL(string: url)?.host?.isEmpty != false || !["http", "https"].contains(URL(string: url)?.scheme ?? "") {
                throw ValidationError("--url must be an absolute http or https URL with a host.")
            }
            if let secret, WebhookSecret(secret) == nil {
                throw ValidationError("--secret must be whsec_ and the base64 of 24 to 64 bytes.")
            }
        }

        func run() async throws {
            var webhook: OpsWebhook?
            if let url, let secret = secret.flatMap(WebhookSecret.init) { webhook = OpsWebhook(url: url, secret: secret) }
            let set = try await database.withStore { store in
                try await TenantService(store: store, defaults: TenantQuota()).setOpsWebhook(webhook, name: name)
            }
            guard set else { throw ValidationError("No tenant is named \(name); `transferd keys create --tenant` creates one.") }
            print("\(name): " + (webhook.map { "operational webhook \(Redaction.url($0.url))" } ?? "the service's operational webhook"))
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
            figure(usage.storedBytes, quota.storedBytes), figure(usage.fetches, quota.fetches), figure(nil as Int?, quota.transfers),
            quota.bandwidthSchedule ?? "none",
        ].joined(separator: "\t")
    }
}
