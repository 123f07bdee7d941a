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
// - `GET /grdb`: one read through GRDB's `DatabasePool` on the calling thread, a cached statement (as transferd).
// - `GET /sqlite`: the same read straight through SQLite's C API, on a few connections kept behind a mutex.

let arguments = CommandLine.arguments
let path = arguments[1]
let port = Int(arguments[2]) ?? 8099
let query = "SELECT id FROM rows WHERE id = 1"

let pool = try DatabasePool(path: path)
try pool.write { db in
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY); INSERT OR IGNORE INTO rows VALUES (1)")
}

func readThroughGRDB() throws -> Int64? {
    try pool.read { db in try Int64.fetchOne(db.cachedStatement(sql: query)) }
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
let router = Router()
router.get("/healthz") { _, _ in "ok" }
router.get("/grdb") { _, _ in String(try readThroughGRDB() ?? 0) }
router.get("/sqlite") { _, _ in String(connections.read()) }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
