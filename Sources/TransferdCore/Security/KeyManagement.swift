import Foundation

/// What `transferd keys` does to the API keys of a data directory (migrating it first when needed).
public enum KeyManagement {
    /// Issues a key for `tenant` (created when new) and returns its token, the only time it is shown.
    public static func create(dataDirectory: String, name: String, tenant: String, admin: Bool) throws -> String {
        try store(dataDirectory).create(name: name, tenant: tenant, admin: admin)
    }

    public static func list(dataDirectory: String) throws -> [APIKeyStore.Listing] {
        try store(dataDirectory).list()
    }

    /// Revokes a key; false when no live key has that id.
    public static func revoke(dataDirectory: String, id: String) throws -> Bool {
        try store(dataDirectory).revoke(id: id)
    }

    private static func store(_ dataDirectory: String) throws -> APIKeyStore {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        return APIKeyStore(database: try AppDatabase(path: dataDirectory + "/transferd.sqlite"))
    }
}
