import Logging
import ServiceLifecycle
import TransferdDomain
import TransferdStorage

/// The store a configuration names, migrated and open: PostgreSQL at `--database-url`, else SQLite in the data
/// directory. As a service, it closes the store's connections once everything else has stopped.
struct OpenedStore: Service {
    let store: any Store
    private let close: @Sendable () async -> Void

    init(dataDirectory: String, databaseURL: String?, connections: Int, logger: Logger) async throws {
        guard let databaseURL else {
            store = try SQLiteStore(dataDirectory: dataDirectory)
            close = {}
            return
        }
        let postgres = try await PostgresStore(url: databaseURL, connections: connections, logger: logger)
        store = postgres
        close = { await postgres.shutdown() }
    }

    /// Runs `body` with the store a command opens for a moment (keys, migrations), then closes it.
    static func with<T>(
        dataDirectory: String,
        databaseURL: String?,
        _ body: (any Store) async throws -> T
    ) async throws -> T {
        let opened = try await OpenedStore(
            dataDirectory: dataDirectory,
            databaseURL: databaseURL,
            connections: 1,
            logger: Logger(label: "transferd")
        )
        do {
            let result = try await body(opened.store)
            await opened.close()
            return result
        } catch {
            await opened.close()
            throw error
        }
    }

    func run() async throws {
        try? await gracefulShutdown()
        await close()
    }
}
