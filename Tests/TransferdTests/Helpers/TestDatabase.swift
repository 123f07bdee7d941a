import GRDB
import Logging
import NIOPosix
import PostgresNIO
import TransferdStorage

/// Direct access to a service's database, to set up states only a crash can leave behind, or to see what a crash
/// left (or a running service wrote): SQLite in its data directory, or its schema in PostgreSQL when the suite runs
/// against a server.
struct TestDatabase {
    let dataDirectory: String

    init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
    }

    /// The SQLite database of the data directory; waits its turn while a running service writes.
    var queue: DatabaseQueue {
        get throws {
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            return try DatabaseQueue(path: dataDirectory + "/transferd.sqlite", configuration: configuration)
        }
    }

    func execute(_ sql: String) async throws {
        _ = try await rows(sql)
    }

    /// The checkpoints (`partial_bytes`) of the running tasks that have one, by task identifier.
    func checkpoints() async throws -> [Int: Int] {
        let rows = try await rows("SELECT task_identifier, partial_bytes FROM tasks WHERE state = 'running' AND partial_bytes > 0")
        return Dictionary(uniqueKeysWithValues: rows.map { (Int($0[0]), Int($0[1])) })
    }

    /// Runs `sql`; returns its rows' integer columns.
    func rows(_ sql: String) async throws -> [[Int64]] {
        guard let url = TestService.databaseURL(forDataDirectory: dataDirectory) else {
            return try await queue.write { db in try Row.fetchAll(db, sql: sql).map { row in (0..<row.count).map { row[$0] } } }
        }
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(),
            configuration: try PostgresLocation(url: url).configuration,
            id: 0,
            logger: Logger(label: "test-database")
        )
        do {
            var rows: [[Int64]] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test-database")) {
                rows.append(try row.map { try $0.decode(Int64.self) })
            }
            try await connection.close()
            return rows
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
