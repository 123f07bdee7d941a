import Foundation
import GRDB
import Logging
import NIOCore
import PostgresNIO
import Synchronization
import TransferdDomain

/// A PostgreSQL connection as the repositories use it, from a thread of the store's own that may wait: each
/// statement is sent and its whole result awaited (`wait()`), its `?` placeholders numbered (`$1`, `$2`, …) and its
/// values exchanged as GRDB's database values.
///
/// A statement the server has not answered within `answerTimeout` fails as `StoreError.unavailable` and closes the
/// connection: a server that died mid-statement (a crash, a failover, a lost network) must not hold the store's
/// thread for ever.
final class PostgresSQLConnection: SQLConnection {
    let connection: PostgresConnection
    private let logger: Logger
    private let answerTimeout: TimeAmount?
    /// Told of every statement sent.
    private let sending: () -> Void
    /// Whether the transaction locks the rows it reads to change (a write under READ COMMITTED).
    private let locksRowsRead: Bool
    private var savepoints = 0

    /// `answerTimeout` nil waits as long as a statement takes (migrations).
    init(
        _ connection: PostgresConnection,
        answerTimeout: TimeAmount? = .seconds(15),
        locksRowsRead: Bool = false,
        logger: Logger,
        sending: @escaping () -> Void = {}
    ) {
        self.connection = connection
        self.locksRowsRead = locksRowsRead
        self.answerTimeout = answerTimeout
        self.logger = logger
        self.sending = sending
    }

    var dialect: SQLDialect { .postgres }

    /// `FOR NO KEY UPDATE`, the lock an `UPDATE` of the row takes itself: one that already changed the row (a
    /// trigger's counters on its session) asks for nothing more, where `FOR UPDATE` asked for a stronger lock and
    /// deadlocked with the writes queued for the row meanwhile; and it lets the inserts that refer to the row
    /// (`FOR KEY SHARE`) through.
    func rowLock(of table: String?) -> String {
        locksRowsRead ? " FOR NO KEY UPDATE" + (table.map { " OF " + $0 } ?? "") : ""
    }

    @discardableResult
    func execute(_ sql: String, _ arguments: SQLArguments) throws -> Int {
        try run(sql, arguments).metadata.rows ?? 0
    }

    func insert(_ sql: String, _ arguments: SQLArguments) throws -> Int64 {
        guard let id: Int64 = try value(sql + " RETURNING id", arguments) else { throw StoreError.rowNotFound("the row of \(sql)") }
        return id
    }

    func forEachRow(_ sql: String, _ arguments: SQLArguments, _ body: (StoredRow) throws -> Void) throws {
        let rows = try run(sql, arguments).rows
        guard let first = rows.first else { return }
        let columns = ColumnNames(first.map(\.columnName))
        for row in rows {
            try body(StoredRow(values: try row.map(Self.databaseValue), columns: columns))
        }
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepoints += 1
        let name = "s\(savepoints)"
        defer { savepoints -= 1 }
        try execute("SAVEPOINT \(name)", [])
        do {
            let result = try body()
            try execute("RELEASE SAVEPOINT \(name)", [])
            return result
        } catch {
            try execute("ROLLBACK TO SAVEPOINT \(name)", [])
            throw error
        }
    }

    private func run(_ sql: String, _ arguments: SQLArguments) throws -> PostgresQueryResult {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch (argument?.databaseValue ?? .null).storage {
            case .null: bindings.appendNull()
            case .int64(let value): bindings.append(value)
            case .double(let value): bindings.append(value)
            case .string(let value): bindings.append(value)
            case .blob(let value): bindings.append(ByteBuffer(bytes: value))
            }
        }
        // A statement without arguments is sent as written (a migration's text may hold a `?` of its own).
        let text = arguments.isEmpty ? sql : Self.numbered(sql)
        sending()
        do {
            return try answer(to: connection.query(PostgresQuery(unsafeSQL: text, binds: bindings), logger: logger)).wait()
        } catch let error as PSQLError where SerializationConflict.states.contains(error.serverInfo?[.sqlState] ?? "") {
            throw SerializationConflict(error: error)
        } catch let error as PSQLError where Self.meansUnavailable(error) {
            throw StoreError.unavailable(String(reflecting: error))
        }
    }

    /// The query's result, or, after `answerTimeout` without one, `StoreError.unavailable`; the connection is then
    /// closed, and the pool drops it.
    private func answer(to query: EventLoopFuture<PostgresQueryResult>) -> EventLoopFuture<PostgresQueryResult> {
        guard let answerTimeout else { return query }
        let connection = connection
        let promise = connection.eventLoop.makePromise(of: PostgresQueryResult.self)
        let settled = Mutex(false)
        let settle: @Sendable (Result<PostgresQueryResult, any Error>) -> Void = { result in
            guard
                settled.withLock({ done in
                    defer { done = true }; return !done
                })
            else { return }
            promise.completeWith(result)
        }
        let timeout = connection.eventLoop.scheduleTask(in: answerTimeout) {
            settle(.failure(StoreError.unavailable("no answer from the database within \(answerTimeout.nanoseconds / 1_000_000_000) s")))
            let _: EventLoopFuture<Void> = connection.close()
        }
        query.whenComplete { result in
            timeout.cancel()
            settle(result)
        }
        return promise.futureResult
    }

    /// Whether the error says that the database cannot be used now (a lost connection, a server shutting down or
    /// starting), rather than that the statement was wrong.
    private static func meansUnavailable(_ error: PSQLError) -> Bool {
        guard error.code == .server else {
            return [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown].contains(error.code)
        }
        // Classes 08 (connection exception) and 57 (operator intervention: admin shutdown, cannot connect now).
        let state = error.serverInfo?[.sqlState] ?? ""
        return state.hasPrefix("08") || state.hasPrefix("57")
    }

    /// A cell as the database value GRDB would have read from SQLite for the same column.
    private static func databaseValue(_ cell: PostgresCell) throws -> DatabaseValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int8: return try cell.decode(Int64.self).databaseValue
        case .int4: return Int64(try cell.decode(Int32.self)).databaseValue
        case .int2: return Int64(try cell.decode(Int16.self)).databaseValue
        case .bool: return (try cell.decode(Bool.self) ? 1 : 0 as Int64).databaseValue
        case .float8: return try cell.decode(Double.self).databaseValue
        case .float4: return Double(try cell.decode(Float.self)).databaseValue
        case .bytea: return Data(try cell.decode(ByteBuffer.self).readableBytesView).databaseValue
        default: return try cell.decode(String.self).databaseValue
        }
    }

    /// `sql` with its `?` placeholders numbered, once per distinct text (the repositories' statements are few).
    private static func numbered(_ sql: String) -> String {
        if let known = numberedTexts.withLock({ $0[sql] }) { return known }
        var text = ""
        var (number, quoted) = (0, false)
        for character in sql {
            if character == "'" { quoted.toggle() }
            if character == "?" && !quoted {
                number += 1
                text += "$\(number)"
            } else {
                text.append(character)
            }
        }
        numberedTexts.withLock { $0[sql] = text }
        return text
    }

    private static let numberedTexts = Mutex<[String: String]>([:])
}

/// PostgreSQL aborted the transaction because another one conflicted with it; running it again sees what that one
/// committed, and may succeed.
struct SerializationConflict: TransactionConflict {
    let error: PSQLError

    /// A serialization failure, a deadlock, and a unique key another transaction inserted since this one looked for
    /// it (under READ COMMITTED, two writes that each found no row with the key).
    static let states: Set<String> = ["40001", "40P01", "23505"]
}
