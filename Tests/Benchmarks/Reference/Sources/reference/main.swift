import GRDB
import GRDBSQLite
import Hummingbird
import Synchronization

// A Hummingbird server with the least a database-backed read can do: one row's key read by primary key from a
// SQLite file in WAL mode, per request, and nothing else (no authentication, no JSON). Its rates bound what any
// route of transferd that reads the database can answer on the same machine.
//
//     reference DATABASE-PATH PORT
//
// - `GET /healthz`: no database.
// - `GET /grdb-pool`: one read through GRDB's `DatabasePool` on the calling thread, a cached statement.
// - `GET /grdb`: the same read through read-only GRDB connections kept behind a mutex, in a transaction begun and
//   ended by cached statements (as transferd reads).
// - `GET /sqlite`: the same read straight through SQLite's C API, on connections kept behind a mutex.

let arguments = CommandLine.arguments
let path = arguments[1]
let port = Int(arguments[2]) ?? 8099
let query = "SELECT id FROM rows WHERE id = 1"

let pool = try DatabasePool(path: path)
try pool.write { db in
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY); INSERT OR IGNORE INTO rows VALUES (1)")
}

func readThroughGRDBPool() throws -> Int64? {
    try pool.read { db in try Int64.fetchOne(db.cachedStatement(sql: query)) }
}

/// Read-only GRDB connections lent out one request at a time.
final class GRDBConnections: Sendable {
    private let free: Mutex<[DatabaseQueue]>

    init(path: String, count: Int) throws {
        var configuration = Configuration()
        configuration.readonly = true
        free = Mutex(try (0..<count).map { _ in try DatabaseQueue(path: path, configuration: configuration) })
    }

    func read() throws -> Int64? {
        let connection = free.withLock { $0.removeLast() }
        defer { free.withLock { $0.append(connection) } }
        return try connection.inDatabase { db in
            try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
            defer { try? db.cachedStatement(sql: "COMMIT TRANSACTION").execute() }
            return try Int64.fetchOne(db.cachedStatement(sql: query))
        }
    }
}

/// Read-only connections, each with its statement prepared once, lent out one request at a time.
final class Connections: Sendable {
    private struct Connection: @unchecked Sendable {
        let database: OpaquePointer
        let statement: OpaquePointer
    }

    private let free: Mutex<[Connection]>

    init(path: String, count: Int) {
        free = Mutex(
            (0..<count).map { _ in
                var database: OpaquePointer?
                var statement: OpaquePointer?
                sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
                sqlite3_prepare_v2(database, query, -1, &statement, nil)
                return Connection(database: database!, statement: statement!)
            }
        )
    }

    func read() -> Int64 {
        let connection = free.withLock { $0.removeLast() }
        defer { free.withLock { $0.append(connection) } }
        sqlite3_step(connection.statement)
        defer { sqlite3_reset(connection.statement) }
        return sqlite3_column_int64(connection.statement, 0)
    }
}

let connections = Connections(path: path, count: 8)
let grdbConnections = try GRDBConnections(path: path, count: 8)
let router = Router()
router.get("/healthz") { _, _ in "ok" }
router.get("/grdb-pool") { _, _ in String(try readThroughGRDBPool() ?? 0) }
router.get("/grdb") { _, _ in String(try grdbConnections.read() ?? 0) }
router.get("/sqlite") { _, _ in String(connections.read()) }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
