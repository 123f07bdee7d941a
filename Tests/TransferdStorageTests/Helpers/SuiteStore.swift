import Logging
import TransferdDomain
import TransferdStorage
import TransferdTestSupport

/// Stores the repository tests open by themselves, on the suite's database, without a service around them.
enum SuiteStore {
    /// Runs `body` with the store of `dataDirectory` (SQLite there, or `databaseURL`'s PostgreSQL schema), migrated,
    /// then closes it.
    static func with<T>(dataDirectory: String, databaseURL: String?, _ body: (any Store) async throws -> T) async throws -> T {
        guard let databaseURL else {
            return try await body(try await SQLiteStore(dataDirectory: dataDirectory, vault: .forTests))
        }
        let store = try await PostgresStore(url: databaseURL, vault: .forTests, connections: 4, logger: Logger(label: "tests"))
        do {
            let result = try await body(store)
            await store.shutdown()
            return result
        } catch {
            await store.shutdown()
            throw error
        }
    }

    /// A fresh store on the suite's database: SQLite in a new data directory, or a new schema on PostgreSQL.
    static func fresh<T>(_ body: (any Store) async throws -> T) async throws -> T {
        let dataDirectory = DataDirectories.temporary()
        return try await with(dataDirectory: dataDirectory, databaseURL: SuiteDatabase.url(forDataDirectory: dataDirectory), body)
    }
}

extension Store {
    /// Whether this is PostgreSQL's store, which other instances may share: some of its statements are its own.
    var isShared: Bool { self is PostgresStore }
}
