import ArgumentParser
import TransferdDomain
import TransferdServices
import TransferdStorage

@testable import transferd

/// What `transferd keys` does, for tests: the key service of a data directory's database, opened beside a running
/// service as the command line would.
enum KeyManagement {
    static func withKeys<T>(_ dataDirectory: String, _ body: (APIKeyService) async throws -> T) async throws -> T {
        try await OpenedStore.with(dataDirectory: dataDirectory, databaseURL: SuiteDatabase.url(forDataDirectory: dataDirectory)) {
            try await body(APIKeyService(store: $0, clock: SystemClock()))
        }
    }

    static func create(dataDirectory: String, name: String, tenant: String, admin: Bool) async throws -> String {
        try await withKeys(dataDirectory) { try await $0.create(name: name, tenant: tenant, admin: admin) }
    }

    static func list(dataDirectory: String) async throws -> [APIKey.Listing] {
        try await withKeys(dataDirectory) { try await $0.list() }
    }

    static func revoke(dataDirectory: String, id: String) async throws -> Bool {
        try await withKeys(dataDirectory) { try await $0.revoke(id: id) }
    }

    /// Runs `transferd` with `arguments` (`tenants set t2 --sessions 1`) as the command line parses and runs them, on
    /// the database of `dataDirectory` (and PostgreSQL when the tests run on it).
    static func command(_ arguments: [String], dataDirectory: String) async throws {
        var arguments = arguments + ["--data-dir", dataDirectory]
        if let url = SuiteDatabase.url(forDataDirectory: dataDirectory) { arguments += ["--database-url", url] }
        var command = try TransferdCommand.parseAsRoot(arguments)
        if var asynchronous = command as? any AsyncParsableCommand {
            try await asynchronous.run()
        } else {
            try command.run()
        }
    }

    /// The lines `transferd tenants list` prints for each tenant.
    static func tenantLines(dataDirectory: String) async throws -> [String] {
        try await OpenedStore.with(dataDirectory: dataDirectory, databaseURL: SuiteDatabase.url(forDataDirectory: dataDirectory)) {
            try await TenantService(store: $0, defaults: TenantQuota()).standings().map(TenantsCommand.line)
        }
    }
}
