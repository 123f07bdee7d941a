import TransferdDomain
import TransferdServices
import TransferdStorage

/// What `transferd keys` does, for tests: the key service of a data directory's database, opened beside a running
/// service as the command line would.
enum KeyManagement {
    static func keys(_ dataDirectory: String) throws -> APIKeyService {
        APIKeyService(store: try SQLiteStore(dataDirectory: dataDirectory), clock: SystemClock())
    }

    static func create(dataDirectory: String, name: String, tenant: String, admin: Bool) async throws -> String {
        try await keys(dataDirectory).create(name: name, tenant: tenant, admin: admin)
    }

    static func list(dataDirectory: String) async throws -> [APIKey.Listing] {
        try await keys(dataDirectory).list()
    }

    static func revoke(dataDirectory: String, id: String) async throws -> Bool {
        try await keys(dataDirectory).revoke(id: id)
    }
}
