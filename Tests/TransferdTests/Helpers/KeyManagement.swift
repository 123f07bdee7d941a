import TransferdDomain
import TransferdServices
import TransferdStorage

@testable import transferd

/// What `transferd keys` does, for tests: the key service of a data directory's database, opened beside a running
/// service as the command line would.
enum KeyManagement {
    static func withKeys<T>(_ dataDirectory: String, _ body: (APIKeyService) async throws -> T) async throws -> T {
        try await OpenedStore.with(dataDirectory: dataDirectory, databaseURL: TestService.databaseURL(forDataDirectory: dataDirectory)) {
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
}
