import GRDB
import Synchronization

/// Read-only connections to the store's database, lent to one read at a time.
///
/// A read through GRDB's `DatabasePool` checks a reader out through a semaphore, a dispatch group and a
/// reader-writer lock and parses `BEGIN` and `COMMIT` afresh. Measured beside each other in the API benchmark's
/// reference server, one read of one row through the pool answered 13,600 requests a second where a connection of
/// its own answered 23,500 (Hummingbird alone: 29,400). The repositories read through these connections exactly as
/// through the pool, with their cached statements.
///
/// A read suspends between its statements: each is an async call, and under NIO's event loops as the global
/// executor every such call goes back through its loop's queue. So a read holds its connection across other
/// requests' work, and a few connections shared by many requests made a convoy: with the line never empty, every
/// read waited, and each connection handed to a waiter stayed idle until the waiter's loop came round to it (issue
/// 62: `GET …/tasks/{n}` at 0.38× its earlier rate, p99 from 7 ms to 1.4 s, the loops a third idle). So a read
/// never waits while fewer than `limit` are under way: a connection is opened when none is free, and kept for the
/// next read. Past `limit` reads at once, a read waits its turn.
final class ReadConnections: Sendable {
    private let free: Mutex<[DatabaseQueue]>
    private let turns: Turnstile
    private let open: @Sendable () throws -> DatabaseQueue

    /// Opens `count` read-only connections (at least one) to the database at `path`, whose schema is already
    /// migrated, and up to `limit` in all as reads need them.
    init(path: String, count: Int, limit: Int, configuration: GRDB.Configuration) throws {
        precondition(count > 0 && limit >= count, "reads need at least one connection, and at most `limit`")
        var configuration = configuration
        configuration.readonly = true
        let readOnly = configuration
        open = { try DatabaseQueue(path: path, configuration: readOnly) }
        free = Mutex(try (0..<count).map { _ in try DatabaseQueue(path: path, configuration: readOnly) })
        turns = Turnstile(capacity: limit)
    }

    /// Runs `body` in a read transaction (one snapshot) on a connection.
    nonisolated(nonsending) func read<T>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        try await lend { connection in
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

    /// Runs `body`'s one statement on a connection without a transaction: a statement is a snapshot of its own. A
    /// second statement is refused by `budget`, with nothing changed.
    nonisolated(nonsending) func lookup<T>(budget: StatementBudget, _ body: (SQLiteConnection) async throws -> T) async throws -> T {
        try await lend { connection in
            try await body(SQLiteConnection(access: { work in try connection.inDatabase(work) }, budget: budget))
        }
    }

    /// A free connection, or a new one when none is.
    nonisolated(nonsending) private func lend<T>(_ body: (DatabaseQueue) async throws -> T) async throws -> T {
        try await turns.run {
            let connection = try free.withLock({ $0.popLast() }) ?? open()
            defer { free.withLock { $0.append(connection) } }
            return try await body(connection)
        }
    }
}
