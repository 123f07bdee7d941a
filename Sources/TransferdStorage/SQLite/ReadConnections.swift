import GRDB
import Synchronization

/// Read-only connections to the store's database, lent to one read at a time: a read waits its turn for one.
///
/// A read through GRDB's `DatabasePool` checks a reader out through a semaphore, a dispatch group and a
/// reader-writer lock and parses `BEGIN` and `COMMIT` afresh. Measured beside each other in the API benchmark's
/// reference server, one read by key answered 13,500 requests a second through the pool, 29,500 through these
/// connections and 31,000 through SQLite's C API. Each connection is a GRDB `DatabaseQueue`, so repositories read
/// through it exactly as through the pool, with its cached statements.
final class ReadConnections: Sendable {
    private let free: Mutex<[DatabaseQueue]>
    private let turns: Turnstile

    /// Opens `count` read-only connections (at least one) to the database at `path`, whose schema is already
    /// migrated.
    init(path: String, count: Int, configuration: GRDB.Configuration) throws {
        precondition(count > 0, "reads need at least one connection: with none, every read would wait for ever")
        var configuration = configuration
        configuration.readonly = true
        free = Mutex(try (0..<count).map { _ in try DatabaseQueue(path: path, configuration: configuration) })
        turns = Turnstile(capacity: count)
    }

    /// Runs `body` in a read transaction (one snapshot) on a free connection.
    func read<T>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        try await turns.run {
            guard let connection = free.withLock({ $0.popLast() }) else { preconditionFailure("a turn without a free connection") }
            defer { free.withLock { $0.append(connection) } }
            let db = SQLiteConnection { work in try connection.inDatabase(work) }
            try await db.execute("BEGIN DEFERRED TRANSACTION", [])
            let result: T
            do {
                result = try await body(db)
            } catch {
                _ = try? await db.execute("ROLLBACK TRANSACTION", [])
                throw error
            }
            // Ending a read transaction releases its snapshot and cannot lose anything; a connection whose commit
            // failed is rolled back rather than lent out inside a transaction.
            do { try await db.execute("COMMIT TRANSACTION", []) } catch { _ = try? await db.execute("ROLLBACK TRANSACTION", []) }
            return result
        }
    }
}
