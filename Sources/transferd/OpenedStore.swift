import Logging
import ServiceLifecycle
import TransferdDomain
import TransferdStorage

/// The store a configuration names, migrated and open: PostgreSQL at `--database-url`, else SQLite in the data
/// directory, its secrets sealed by `vault`, its commits' signals delivered to `signals`. As a service, it relays the signals of other instances
/// and keeps the planner's statistics fresh (PostgreSQL) until everything else has stopped, then closes the store's
/// connections.
struct OpenedStore: Service {
    let store: any Store
    /// What runs beside the store while it serves.
    private let upkeep: [@Sendable () async -> Void]
    private let close: @Sendable () async -> Void

    init(
        dataDirectory: String,
        databaseURL: String?,
        vault: CredentialVault,
        connections: Int,
        signals: SignalBus = SignalBus(),
        logger: Logger
    ) async throws {
        guard let databaseURL else {
            store = try await SQLiteStore(dataDirectory: dataDirectory, vault: vault, signals: signals)
            (upkeep, close) = ([], {})
            return
        }
        let postgres = try await PostgresStore(url: databaseURL, vault: vault, connections: connections, signals: signals, logger: logger)
        store = postgres
        upkeep = [{ await postgres.relaySignals() }, { await postgres.refreshPlannerStatistics() }]
        close = { await postgres.shutdown() }
    }

    /// The store of an instance that serves: a PostgreSQL server it cannot reach yet (starting beside it, failing
    /// over) is waited for, with a warning at every try, one to ten seconds apart, instead of ending the process.
    /// Commands that open a store for a moment fail at once instead.
    static func waitingForDatabase(
        dataDirectory: String,
        databaseURL: String?,
        vault: CredentialVault,
        connections: Int,
        signals: SignalBus,
        logger: Logger
    ) async throws -> OpenedStore {
        var delay = Duration.seconds(1)
        while true {
            do {
                return try await OpenedStore(
                    dataDirectory: dataDirectory,
                    databaseURL: databaseURL,
                    vault: vault,
                    connections: connections,
                    signals: signals,
                    logger: logger
                )
            } catch StoreError.unavailable(let reason) {
                logger.warning("cannot reach the database; trying again", metadata: ["in": "\(delay)", "error": "\(reason)"])
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(10))
            }
        }
    }

    /// Runs `body` with the store a command opens for a moment (keys), its secrets sealed by the configured
    /// credentials key, then closes it.
    static func with<T>(
        dataDirectory: String,
        databaseURL: String?,
        _ body: (any Store) async throws -> T
    ) async throws -> T {
        let opened = try await OpenedStore(
            dataDirectory: dataDirectory,
            databaseURL: databaseURL,
            vault: try CredentialsKey.vault(dataDirectory: dataDirectory),
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
        await withDiscardingTaskGroup { group in
            for work in upkeep { group.addTask { await work() } }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        await close()
    }
}
