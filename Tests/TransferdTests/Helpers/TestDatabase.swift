import Foundation
import GRDB
import Logging
import NIOPosix
import PostgresNIO
import Testing
import TransferdStorage
import TransferdTestSupport

/// Direct access to a service's database, to set up states only a crash can leave behind, or to see what a crash
/// left (or a running service wrote): SQLite in its data directory, or its schema in PostgreSQL when the suite runs
/// against a server.
struct TestDatabase {
    let dataDirectory: String
    /// How long a statement waits for SQLite's writer while the service holds it, in seconds.
    let busyTimeout: TimeInterval

    init(dataDirectory: String, busyTimeout: TimeInterval = 10) {
        (self.dataDirectory, self.busyTimeout) = (dataDirectory, busyTimeout)
    }

    /// The SQLite database of the data directory; waits its turn while a running service writes.
    var queue: DatabaseQueue {
        get throws {
            var configuration = Configuration()
            configuration.busyMode = .timeout(busyTimeout)
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
        guard let url = SuiteDatabase.url(forDataDirectory: dataDirectory) else {
            return try await queue.write { db in try Row.fetchAll(db, sql: sql).map { row in (0..<row.count).map { row[$0] } } }
        }
        return try await Self.query(url, sql) { row in try row.map { try $0.decode(Int64.self) } }
    }

    /// Runs `sql`; returns its rows' first column as text (NULL as "").
    func texts(_ sql: String) async throws -> [String] {
        guard let url = SuiteDatabase.url(forDataDirectory: dataDirectory) else {
            return try await queue.read { db in try Row.fetchAll(db, sql: sql).map { row in row[0] ?? "" } }
        }
        return try await Self.query(url, sql) { row in try row.first?.decode(String?.self) ?? "" }
    }

    /// What the database keeps, to be searched for what must not be there: SQLite's file and log byte for byte, or
    /// every row of the PostgreSQL schema's tables as text.
    func storedBytes() async throws -> Data {
        guard SuiteDatabase.url(forDataDirectory: dataDirectory) != nil else {
            let path = dataDirectory + "/transferd.sqlite"
            return [path, path + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }.reduce(Data(), +)
        }
        var stored = Data()
        for table in try await texts("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()") {
            stored += Data(try await texts("SELECT COALESCE(string_agg(t::text, ' '), '') FROM \(table) t").joined().utf8)
        }
        return stored
    }

    private static func query<T>(_ url: String, _ sql: String, _ decode: (PostgresRow) throws -> T) async throws -> [T] {
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(),
            configuration: try PostgresLocation(url: url).configuration,
            id: 0,
            logger: Logger(label: "test-database")
        )
        do {
            var rows: [T] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test-database")) {
                rows.append(try decode(row))
            }
            try await connection.close()
            return rows
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
