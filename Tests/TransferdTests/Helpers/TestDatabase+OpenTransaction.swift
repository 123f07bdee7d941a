import Logging
import NIOPosix
import PostgresNIO
import Testing
import TransferdStorage

extension TestDatabase {
    /// A transaction left open in a service's PostgreSQL database, with a transaction id of its own, as another
    /// application's long transaction (or a backup's) would be.
    struct OpenTransaction {
        private let connection: PostgresConnection

        init(dataDirectory: String) async throws {
            let url = try #require(SuiteDatabase.url(forDataDirectory: dataDirectory))
            let logger = Logger(label: "open-transaction")
            connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(),
                configuration: try PostgresLocation(url: url).configuration,
                id: 0,
                logger: logger
            )
            for statement in ["BEGIN", "SELECT pg_current_xact_id()"] {
                _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        }

        /// Locks the row of the session `identifier` until the transaction ends: a write that changes the session (a
        /// task's state, an event's sequence) waits for it.
        func lockSession(_ identifier: String) async throws {
            let query: PostgresQuery = "SELECT id FROM sessions WHERE identifier = \(identifier) FOR UPDATE"
            let rows = try await connection.query(query, logger: Logger(label: "open-transaction"))
            #expect(try await rows.collect().count == 1, "the session's row is locked")
        }

        /// Locks the row of the task `taskIdentifier` of the session `identifier` and leases it to `owner`, as
        /// another instance that took it over would: the lease is that instance's once the transaction commits.
        func lease(task taskIdentifier: Int, of identifier: String, to owner: String) async throws {
            let query: PostgresQuery = """
                UPDATE tasks SET lease_owner = \(owner) WHERE task_identifier = \(taskIdentifier)
                AND session_id = (SELECT id FROM sessions WHERE identifier = \(identifier)) RETURNING id
                """
            let rows = try await connection.query(query, logger: Logger(label: "open-transaction"))
            #expect(try await rows.collect().count == 1, "the task's row is leased")
        }

        /// Commits the transaction and closes its connection.
        func commit() async throws {
            _ = try await connection.query("COMMIT", logger: Logger(label: "open-transaction"))
            try await connection.close()
        }

        /// Rolls the transaction back and closes its connection.
        func end() async throws {
            _ = try await connection.query("ROLLBACK", logger: Logger(label: "open-transaction"))
            try await connection.close()
        }
    }
}
